import { createCipheriv, createDecipheriv, hkdfSync, pbkdf2, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { Curve, getBinaryNodeChild, getBinaryNodeChildBuffer } from '@whiskeysockets/baileys';
import type { BinaryNode } from '@whiskeysockets/baileys';
import type { ClientConnection } from '../transport/connection.js';
import { IqError, SERVER, splitJid, stanzaId, unixNow } from '../network/network.js';
import type { Feature, Network } from '../network/network.js';
import type { CompanionDevice } from '../network/model.js';
import { SimError } from '../network/errors.js';
import { PAIRING_CODE_DISPLAY } from '../verdicts.js';
import type { Registrations } from './registration.js';
import { linkDevice } from './linking.js';

const derive = promisify(pbkdf2);
/** PBKDF2-SHA256 iterations of the code key (2 << 16), as both WhatsApp clients derive it. */
const CODE_KEY_ITERATIONS = 2 << 16;
/** How long the phone waits for the client's `companion_finish` after its `primary_hello`. */
const FINISH_TIMEOUT_MS = 20_000;

const codeKey = async (code: string, salt: Buffer): Promise<Buffer> => derive(Buffer.from(code), salt, CODE_KEY_ITERATIONS, 32, 'sha256');
const ctr = (key: Buffer, iv: Buffer, data: Buffer, decrypt: boolean): Buffer => {
  const cipher = decrypt ? createDecipheriv('aes-256-ctr', key, iv) : createCipheriv('aes-256-ctr', key, iv);
  return Buffer.concat([cipher.update(data), cipher.final()]);
};
const hkdf = (ikm: Buffer, salt: Buffer, info: string): Buffer => Buffer.from(hkdfSync('sha256', ikm, salt, info, 32));
const bytes = (node: BinaryNode | undefined, tag: string): Buffer | undefined => {
  const value = getBinaryNodeChildBuffer(node, tag);
  return value ? Buffer.from(value) : undefined;
};

/** Whether WhatsApp accepts a `companion_platform_display` (see PAIRING_CODE_DISPLAY for the sources). */
export function displayAccepted(display: string): boolean {
  const match = /^(.+) \((.+)\)$/.exec(display);
  const { browsers, systems } = PAIRING_CODE_DISPLAY.value;
  return !!match && browsers.includes(match[1]!) && systems.includes(match[2]!);
}

function companionHello(registrations: Registrations, connection: ClientConnection, reg: BinaryNode): BinaryNode[] {
  const registration = registrations.get(connection);
  const wrapped = bytes(reg, 'link_code_pairing_wrapped_companion_ephemeral_pub');
  const noiseKey = bytes(reg, 'companion_server_auth_key_pub');
  const display = bytes(reg, 'companion_platform_display')?.toString() ?? '';
  if (!registration || !reg.attrs.jid || wrapped?.length !== 80 || !noiseKey?.equals(connection.clientStatic ?? Buffer.alloc(0))) throw new IqError(400, 'bad-request');
  if (!displayAccepted(display)) throw new IqError(PAIRING_CODE_DISPLAY.value.refusal.code, PAIRING_CODE_DISPLAY.value.refusal.text);
  const ref = randomBytes(16).toString('base64url');
  registration.pairingCode = {
    number: splitJid(reg.attrs.jid)[0], wrappedEphemeral: wrapped, ref, platformDisplay: display,
    platformId: bytes(reg, 'companion_platform_id')?.toString() ?? '',
  };
  return [{ tag: 'link_code_companion_reg', attrs: {}, content: [{ tag: 'link_code_pairing_ref', attrs: {}, content: Buffer.from(ref) }] }];
}

function companionFinish(registrations: Registrations, connection: ClientConnection, reg: BinaryNode): BinaryNode[] {
  const request = registrations.get(connection)?.pairingCode;
  const ref = bytes(reg, 'link_code_pairing_ref')?.toString();
  const waiter = request?.ref === ref ? request?.onFinish : undefined;
  if (!request || !waiter) throw new IqError(404, 'item-not-found');
  request.onFinish = undefined;
  waiter(reg);
  return [];
}

/**
 * Linking by an 8-character code (`link_code_companion_reg`): the client's `companion_hello` (refused with
 * 400 bad-request when its display name is not a real browser and OS, as WhatsApp does), the phone's
 * `primary_hello` once its user typed the code, the client's `companion_finish` with its wrapped key bundle,
 * then the same pair-success and 515 restart as a QR link, under the adv secret both sides derived.
 */
export function pairingCodeFeature(registrations: Registrations): Feature {
  return {
    iq: {
      'md/link_code_companion_reg': (connection, iq) => {
        const reg = getBinaryNodeChild(iq, 'link_code_companion_reg')!;
        if (reg.attrs.stage === 'companion_hello') return companionHello(registrations, connection, reg);
        if (reg.attrs.stage === 'companion_finish') return companionFinish(registrations, connection, reg);
        throw new IqError(400, 'bad-request');
      },
    },
  };
}

/** The phone of `number` enters the code a client shows; resolves once that client is linked. */
export async function enterPairingCode(network: Network, registrations: Registrations, number: string, typed: string): Promise<CompanionDevice> {
  const account = network.account(number);
  const code = String(typed ?? '').replace(/[-\s]/g, '').toUpperCase();
  if (!/^[0-9A-Z]{8}$/.test(code)) throw new SimError(400, 'invalid_code', 'a pairing code has 8 letters or digits (a dash in the middle is allowed)', { field: 'code' });
  const registration = registrations.all().find((r) => r.pairingCode?.number === account.number && !r.linking);
  if (!registration?.pairingCode) throw new SimError(404, 'no_pairing_request', `no client asked for a pairing code for ${account.number}`, { number: account.number });
  const request = registration.pairingCode;
  const companionEphemeral = ctr(await codeKey(code, request.wrappedEphemeral.subarray(0, 32)), request.wrappedEphemeral.subarray(32, 48), request.wrappedEphemeral.subarray(48, 80), true);
  const primaryEphemeral = Curve.generateKeyPair();
  const salt = randomBytes(32);
  const iv = randomBytes(16);
  const wrappedPrimary = Buffer.concat([salt, iv, ctr(await codeKey(code, salt), iv, Buffer.from(primaryEphemeral.public), false)]);
  const finished = new Promise<BinaryNode>((resolve, reject) => {
    const timer = setTimeout(() => {
      request.onFinish = undefined;
      reject(new SimError(504, 'client_silent', 'the client did not finish the pairing-code link'));
    }, FINISH_TIMEOUT_MS);
    request.onFinish = (node) => {
      clearTimeout(timer);
      resolve(node);
    };
  });
  registration.connection.send({
    tag: 'notification', attrs: { from: SERVER, id: stanzaId(), type: 'link_code_companion_reg', t: unixNow() },
    content: [{ tag: 'link_code_companion_reg', attrs: { stage: 'primary_hello' }, content: [
      { tag: 'link_code_pairing_wrapped_primary_ephemeral_pub', attrs: {}, content: wrappedPrimary },
      { tag: 'primary_identity_pub', attrs: {}, content: account.phone.identity.public },
      { tag: 'link_code_pairing_ref', attrs: {}, content: Buffer.from(request.ref) },
    ] }],
  });
  const finish = await finished;
  const bundle = bytes(finish, 'link_code_pairing_wrapped_key_bundle');
  const sharedEphemeral = Buffer.from(Curve.sharedKey(primaryEphemeral.private, companionEphemeral));
  let payload: Buffer;
  try {
    if (!bundle || bundle.length < 32 + 12 + 16) throw new Error('short bundle');
    const key = hkdf(sharedEphemeral, bundle.subarray(0, 32), 'link_code_pairing_key_bundle_encryption_key');
    const decipher = createDecipheriv('aes-256-gcm', key, bundle.subarray(32, 44));
    decipher.setAuthTag(bundle.subarray(bundle.length - 16));
    payload = Buffer.concat([decipher.update(bundle.subarray(44, bundle.length - 16)), decipher.final()]);
  } catch {
    // A wrong code gives the phone a different ephemeral key, so the client's key bundle does not open.
    registration.pairingCode = undefined;
    throw new SimError(400, 'wrong_code', 'the code does not match the one the client shows');
  }
  const companionIdentity = payload.subarray(0, 32);
  if (!companionIdentity.equals(registration.keys.identityKey) || !payload.subarray(32, 64).equals(account.phone.identity.public)) {
    throw new SimError(400, 'key_mismatch', 'the key bundle names other identity keys than the client and phone have');
  }
  const identityShared = Buffer.from(Curve.sharedKey(account.phone.identity.private, companionIdentity));
  const advSecret = hkdf(Buffer.concat([sharedEphemeral, identityShared, payload.subarray(64, 96)]), Buffer.alloc(0), 'adv_secret');
  return linkDevice(network, registrations, registration, account, advSecret);
}
