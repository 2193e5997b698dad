import {
  Curve, createSignalIdentity, INITIAL_PREKEY_COUNT, initAuthCreds, MIN_PREKEY_COUNT,
  type AuthenticationCreds, type KeyPair, type proto,
} from '@whiskeysockets/baileys';
import type { Network } from '../network/network.js';
import type { Account, CompanionDevice } from '../network/model.js';
import { SimError } from '../network/errors.js';
import { addCompanion, deviceSignedMessage, signCompanionIdentity } from './device-identity.js';
import { announceDevices } from './device-list.js';
import { appStateKeyData } from './app-state.js';
import { MAX_UPLOAD } from './prekeys.js';

/** How {@link issueCompanion} leaves the new device. */
export interface IssueOptions {
  /** One-time prekeys generated and uploaded to the server (default 812, Baileys' INITIAL_PREKEY_COUNT; 6 to 2000). */
  preKeys?: number;
  /**
   * True (default): as after the first login's initial sync — the phone's app-state key is in the keys,
   * `accountSyncCounter` is 1 and the phone sends no history at login. False: as right after the link,
   * so the first login gets the key share and the history, as a QR-linked client does.
   */
  synced?: boolean;
  /** Tell the network's other companions that the account has a new device, as a link does (default true). */
  announce?: boolean;
  /** What the account's device list shows as the device's platform (default `issued`). */
  platform?: string;
}

/** The Baileys auth state of an issued device: what `makeWASocket({ auth })` needs to log in as it. */
export interface IssuedCompanion {
  device: { id: number; jid: string; lid: string };
  creds: AuthenticationCreds;
  /** Signal keys by Baileys key type and id: the one-time prekeys and, when synced, the app-state key. */
  keys: {
    'pre-key': Record<string, KeyPair>;
    'app-state-sync-key': Record<string, proto.Message.IAppStateSyncKeyData>;
  };
}

function preKeyCount(value: number | undefined): number {
  if (value === undefined) return INITIAL_PREKEY_COUNT;
  if (!Number.isInteger(value) || value <= MIN_PREKEY_COUNT || value > MAX_UPLOAD) {
    throw new SimError(400, 'invalid_request', `preKeys must be an integer from ${MIN_PREKEY_COUNT + 1} to ${MAX_UPLOAD} (Baileys uploads more at login when the server has ${MIN_PREKEY_COUNT} or fewer)`, { field: 'preKeys' });
  }
  return value;
}

/**
 * Issues a linked companion of `account` directly, with the credentials a QR link and the first login
 * would have left a Baileys client: Baileys' own fresh creds (`initAuthCreds`: noise key, identity, signed
 * prekey, registration id, adv secret), the phone's ADV-signed identity with the device signature
 * (`account`), `me` and the phone's signal identity as `configureSuccessfulPairing` records them
 * (Baileys Utils/validate-connection.js), and `preKeys` one-time prekeys the server holds as if uploaded
 * (ids 1…n, `nextPreKeyId` n+1 as Baileys' getNextPreKeys leaves it). The server records the device as
 * a link does, so a socket with this state logs in passively (no registration, QR or 515 restart).
 */
export function issueCompanion(network: Network, account: Account, options: IssueOptions = {}): IssuedCompanion {
  const count = preKeyCount(options.preKeys);
  const platform = options.platform ?? 'issued';
  if (typeof platform !== 'string' || platform.length < 1 || platform.length > 100) throw new SimError(400, 'invalid_request', 'platform must be 1 to 100 characters', { field: 'platform' });
  const synced = options.synced ?? true;
  const creds = initAuthCreds();
  const identityKey = Buffer.from(creds.signedIdentityKey.public);
  const id = account.nextDeviceId;
  const keyIndex = account.nextKeyIndex;
  const signed = signCompanionIdentity(account, identityKey, keyIndex);
  const deviceSignature = Buffer.from(Curve.sign(creds.signedIdentityKey.private, deviceSignedMessage(signed, identityKey)));
  const jid = `${account.number}:${id}@s.whatsapp.net`;
  const lidJid = `${account.lid}:${id}@lid`;
  const preKeys: Record<string, KeyPair> = {};
  for (let keyId = 1; keyId <= count; keyId++) preKeys[keyId] = Curve.generateKeyPair();
  const keyId = account.appState.keyId.toString('base64');
  Object.assign(creds, {
    // A synced client has applied the phone's critical_block, which holds its push name (app-state.ts).
    me: { id: jid, lid: lidJid, ...(account.business || synced ? { name: account.pushName } : {}) },
    account: { ...signed, deviceSignature },
    signalIdentities: [createSignalIdentity(lidJid, signed.accountSignatureKey)],
    platform: account.business ? 'smbi' : 'android',
    nextPreKeyId: count + 1,
    firstUnuploadedPreKeyId: count + 1,
    ...(synced ? { myAppStateKeyId: keyId, accountSyncCounter: 1 } : {}),
  });
  const device: CompanionDevice = {
    id, jid, lidJid, noiseKey: Buffer.from(creds.noiseKey.public), keyIndex,
    keys: {
      registrationId: creds.registrationId, identityKey,
      signedPreKey: { id: creds.signedPreKey.keyId, publicKey: Buffer.from(creds.signedPreKey.keyPair.public), signature: Buffer.from(creds.signedPreKey.signature) },
      preKeys: new Map(Object.entries(preKeys).map(([k, pair]) => [Number(k), Buffer.from(pair.public)])),
    },
    signedIdentity: { ...signed, deviceSignature },
    platform, linkedAt: new Date(), connection: undefined, pending: [], historySent: synced,
  };
  addCompanion(account, device);
  if (options.announce ?? true) announceDevices(network, account, 'add', device);
  return {
    device: { id, jid, lid: lidJid },
    creds,
    keys: { 'pre-key': preKeys, 'app-state-sync-key': synced ? { [keyId]: appStateKeyData(account) } : {} },
  };
}
