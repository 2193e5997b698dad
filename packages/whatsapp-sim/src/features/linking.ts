import { createHmac } from 'node:crypto';
import { getBinaryNodeChild, proto } from '@whiskeysockets/baileys';
import { SERVER, stanzaId } from '../network/network.js';
import type { Network } from '../network/network.js';
import type { Account, CompanionDevice } from '../network/model.js';
import { SimError } from '../network/errors.js';
import { signatureValid } from '../transport/signatures.js';
import type { Registration, Registrations } from './registration.js';
import { endStream } from './login.js';
import { announceDevices } from './device-list.js';
import { addCompanion, deviceSignedMessage, signCompanionIdentity } from './device-identity.js';

/**
 * The phone links a waiting client: it signs a device identity for the companion's identity key with its
 * own identity key (the ADV account signature), authenticates it with the adv secret the client showed
 * (HMAC-SHA256), sends `<pair-success>`, checks the device signature in the client's answer, records the
 * companion and ends the stream with 515 so the client logs in with its new credentials.
 */
export async function linkDevice(network: Network, registrations: Registrations, registration: Registration, account: Account, advSecret: Buffer): Promise<CompanionDevice> {
  if (registration.linking) throw new SimError(409, 'already_linking', 'this client is already being linked');
  registration.linking = true;
  const { connection } = registration;
  const companionIdentity = registration.keys.identityKey;
  const id = account.nextDeviceId;
  const keyIndex = account.nextKeyIndex;
  const identity = signCompanionIdentity(account, companionIdentity, keyIndex);
  const { details, accountSignatureKey, accountSignature } = identity;
  const signed = proto.ADVSignedDeviceIdentity.encode({ details, accountSignatureKey, accountSignature }).finish();
  const hmac = createHmac('sha256', advSecret).update(signed).digest();
  const jid = `${account.number}:${id}@s.whatsapp.net`;
  const lidJid = `${account.lid}:${id}@lid`;
  const answer = await network.query(connection, {
    tag: 'iq', attrs: { from: SERVER, type: 'set', id: stanzaId() },
    content: [{
      tag: 'pair-success', attrs: {},
      content: [
        { tag: 'device-identity', attrs: {}, content: proto.ADVSignedDeviceIdentityHMAC.encode({ details: signed, hmac }).finish() },
        { tag: 'platform', attrs: { name: account.business ? 'smbi' : 'android' } },
        { tag: 'device', attrs: { jid, lid: lidJid } },
        ...(account.business ? [{ tag: 'biz', attrs: { name: account.pushName } }] : []),
      ],
    }],
  }).catch((error: Error) => {
    registration.linking = false;
    throw new SimError(504, 'client_silent', `the client did not answer pair-success: ${error.message}`);
  });
  const identityNode = getBinaryNodeChild(getBinaryNodeChild(answer, 'pair-device-sign'), 'device-identity');
  const returned = identityNode?.content instanceof Uint8Array ? proto.ADVSignedDeviceIdentity.decode(identityNode.content) : undefined;
  const deviceSignature = returned?.deviceSignature;
  const valid = answer.attrs.type === 'result' && returned && deviceSignature && Buffer.from(returned.details ?? []).equals(details)
    && signatureValid(companionIdentity, deviceSignedMessage(identity, companionIdentity), deviceSignature);
  if (!valid) {
    registrations.remove(connection);
    connection.close();
    throw new SimError(502, 'bad_device_signature', 'the client answered pair-success without a valid device signature');
  }
  const device: CompanionDevice = {
    id, jid, lidJid, noiseKey: connection.clientStatic!, keys: registration.keys, keyIndex,
    signedIdentity: { details, accountSignatureKey, accountSignature, deviceSignature },
    platform: registration.platform, linkedAt: new Date(), connection: undefined, pending: [], historySent: false,
  };
  addCompanion(account, device);
  registrations.remove(connection);
  endStream(connection, 'restart');
  announceDevices(network, account, 'add', device);
  return device;
}
