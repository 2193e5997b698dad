import { createHash } from 'node:crypto';
import { encodeSignedDeviceIdentity, getBinaryNodeChild, getBinaryNodeChildBuffer, getBinaryNodeChildren, KEY_BUNDLE_TYPE } from '@whiskeysockets/baileys';
import type { BinaryNode } from '@whiskeysockets/baileys';
import type { ClientConnection } from '../transport/connection.js';
import { deviceOf, IqError, SERVER, stanzaId, unixNow } from '../network/network.js';
import { SimError } from '../network/errors.js';
import type { Feature, Network } from '../network/network.js';
import type { Account, CompanionDevice, DeviceKeys } from '../network/model.js';
import type { PreKeyBundle } from '../network/phone.js';

/** Most one-time prekeys one upload may carry (Baileys uploads 812 at first, then 5 at a time). */
export const MAX_UPLOAD = 2_000;

const uint = (value: number, bytes: number): Buffer => {
  const out = Buffer.alloc(bytes);
  out.writeUIntBE(value, 0, bytes);
  return out;
};
const bytes = (node: BinaryNode | undefined, tag: string): Buffer | undefined => {
  const value = getBinaryNodeChildBuffer(node, tag);
  return value ? Buffer.from(value) : undefined;
};
const readId = (node: BinaryNode | undefined): number | undefined => {
  const id = bytes(node, 'id');
  return id && id.length > 0 && id.length <= 3 ? id.readUIntBE(0, id.length) : undefined;
};

/** The device a logged-in connection is, or a 401 iq error. */
export function requireSession(network: Network, connection: ClientConnection): { account: Account; device: CompanionDevice } {
  const session = network.session(connection);
  if (!session) throw new IqError(401, 'not-authorized');
  return session;
}

function signedPreKeyOf(node: BinaryNode | undefined): DeviceKeys['signedPreKey'] {
  const id = readId(node);
  const publicKey = bytes(node, 'value');
  const signature = bytes(node, 'signature');
  if (id === undefined || publicKey?.length !== 32 || signature?.length !== 64) throw new IqError(400, 'bad-request');
  return { id, publicKey, signature };
}

function upload(keys: DeviceKeys, iq: BinaryNode): void {
  const identity = bytes(iq, 'identity');
  const registration = bytes(iq, 'registration');
  const list = getBinaryNodeChildren(getBinaryNodeChild(iq, 'list'), 'key');
  if (identity?.length !== 32 || !registration || registration.length !== 4 || list.length > MAX_UPLOAD) throw new IqError(400, 'bad-request');
  if (!identity.equals(keys.identityKey)) throw new IqError(409, 'conflict');
  const signedPreKey = signedPreKeyOf(getBinaryNodeChild(iq, 'skey'));
  const preKeys = list.map((key) => ({ id: readId(key), value: bytes(key, 'value') }));
  if (preKeys.some((k) => k.id === undefined || k.value?.length !== 32)) throw new IqError(400, 'bad-request');
  keys.registrationId = registration.readUInt32BE(0);
  keys.signedPreKey = signedPreKey;
  for (const { id, value } of preKeys) keys.preKeys.set(id!, value!);
  if (keys.preKeys.size >= PREKEY_LOW) toldLow.delete(keys);
}

/** A device's bundle; each one-time prekey is given out once, after which only the signed prekey remains. */
function take(keys: DeviceKeys): PreKeyBundle {
  const bundle: PreKeyBundle = {
    registrationId: keys.registrationId, identityKey: keys.identityKey,
    signedPreKey: { keyId: keys.signedPreKey.id, publicKey: keys.signedPreKey.publicKey, signature: keys.signedPreKey.signature },
  };
  const next = keys.preKeys.entries().next();
  if (!next.done) {
    const [keyId, publicKey] = next.value;
    keys.preKeys.delete(keyId);
    bundle.preKey = { keyId, publicKey };
  }
  return bundle;
}

function bundleNode(jid: string, bundle: PreKeyBundle, device: CompanionDevice | undefined): BinaryNode {
  const content: BinaryNode[] = [
    { tag: 'registration', attrs: {}, content: uint(bundle.registrationId, 4) },
    { tag: 'type', attrs: {}, content: KEY_BUNDLE_TYPE },
    { tag: 'identity', attrs: {}, content: bundle.identityKey },
    { tag: 'skey', attrs: {}, content: [
      { tag: 'id', attrs: {}, content: uint(bundle.signedPreKey.keyId, 3) },
      { tag: 'value', attrs: {}, content: bundle.signedPreKey.publicKey },
      { tag: 'signature', attrs: {}, content: bundle.signedPreKey.signature },
    ] },
  ];
  if (bundle.preKey) {
    content.push({ tag: 'key', attrs: {}, content: [{ tag: 'id', attrs: {}, content: uint(bundle.preKey.keyId, 3) }, { tag: 'value', attrs: {}, content: bundle.preKey.publicKey }] });
  }
  if (device?.signedIdentity) content.push({ tag: 'device-identity', attrs: {}, content: encodeSignedDeviceIdentity(device.signedIdentity, true) });
  return { tag: 'user', attrs: { jid }, content };
}

/** The keys of any device on the network by JID: a phone (device 0) or a linked companion. */
export function keysOf(network: Network, jid: string): { keys: DeviceKeys; device: CompanionDevice | undefined } | undefined {
  const account = network.accountOf(jid);
  if (!account) return undefined;
  if (deviceOf(jid) === 0) return { keys: account.phone.keys, device: undefined };
  const device = network.companionOf(jid);
  return device ? { keys: device.keys, device } : undefined;
}

/** Hands out a device's bundle to an in-network requester (the simulated phones). */
export function takeBundle(network: Network, jid: string): PreKeyBundle | undefined {
  const found = keysOf(network, jid);
  return found ? takeFrom(network, found) : undefined;
}

/**
 * Below this many one-time prekeys the server tells a companion to upload more (Baileys Defaults
 * MIN_PREKEY_COUNT; its Socket/socket.js: "the server drives uploads via PreKeyLow notifications").
 */
export const PREKEY_LOW = 5;

/** Devices told their prekeys run low whose upload has not come yet: one notification per shortage. */
const toldLow = new WeakSet<DeviceKeys>();

/**
 * Takes a bundle; when its one-time prekey leaves a companion fewer than {@link PREKEY_LOW}, the companion
 * gets `<notification type="encrypt"><count value/></notification>` (kept for its next login when away),
 * which Baileys answers with an upload (Socket/messages-recv.js handleEncryptNotification).
 */
function takeFrom(network: Network, found: { keys: DeviceKeys; device: CompanionDevice | undefined }): PreKeyBundle {
  const bundle = take(found.keys);
  if (found.device && bundle.preKey && found.keys.preKeys.size < PREKEY_LOW && !toldLow.has(found.keys)) {
    toldLow.add(found.keys);
    // `from` is the server's JID with no user, a JID pair on the wire, which Baileys decodes as `@s.whatsapp.net`
    // and compares with S_WHATSAPP_NET; the bare `s.whatsapp.net` token would be taken for an identity change.
    network.deliver(found.device, {
      tag: 'notification', attrs: { from: `@${SERVER}`, type: 'encrypt', id: stanzaId(), t: unixNow() },
      content: [{ tag: 'count', attrs: { value: String(found.keys.preKeys.size) } }],
    });
  }
  return bundle;
}

/** Hands out `count` of a device's one-time prekeys as if that many new contacts fetched its bundle (tests of the top-up). */
export function drainPreKeys(network: Network, jid: string, count: number): number {
  const found = keysOf(network, jid);
  if (!found) throw new SimError(404, 'device_not_found', `no device ${jid}`, { field: 'jid' });
  for (let i = 0; i < count && found.keys.preKeys.size > 0; i++) takeFrom(network, found);
  return found.keys.preKeys.size;
}

/**
 * `xmlns="encrypt"`: prekey count, upload, digest, signed-prekey rotation, and key bundles for other
 * devices (`<key><user jid/></key>`).
 */
export function prekeysFeature(network: Network): Feature {
  return {
    iq: {
      encrypt: (connection, iq) => {
        const { device } = requireSession(network, connection);
        const first = Array.isArray(iq.content) ? iq.content[0] : undefined;
        if (iq.attrs.type === 'set' && getBinaryNodeChild(iq, 'list')) {
          upload(device.keys, iq);
          return [];
        }
        switch (first?.tag) {
          case 'count':
            return [{ tag: 'count', attrs: { value: String(device.keys.preKeys.size) } }];
          case 'digest': {
            const ids = [...device.keys.preKeys.keys()];
            const hash = createHash('sha1').update(device.keys.identityKey).update(device.keys.signedPreKey.publicKey).update(ids.join(',')).digest();
            return [{ tag: 'digest', attrs: {}, content: [
              { tag: 'type', attrs: {}, content: KEY_BUNDLE_TYPE },
              { tag: 'identity', attrs: {}, content: device.keys.identityKey },
              { tag: 'skey', attrs: {}, content: [{ tag: 'id', attrs: {}, content: uint(device.keys.signedPreKey.id, 3) }] },
              { tag: 'list', attrs: {}, content: ids.map((id) => ({ tag: 'id', attrs: {}, content: uint(id, 3) })) },
              { tag: 'hash', attrs: {}, content: hash },
            ] }];
          }
          case 'rotate':
            device.keys.signedPreKey = signedPreKeyOf(getBinaryNodeChild(first, 'skey'));
            return [];
          case 'key': {
            const users = getBinaryNodeChildren(first, 'user').map((user) => {
              const jid = user.attrs.jid ?? '';
              const found = keysOf(network, jid);
              return found ? bundleNode(jid, takeFrom(network, found), found.device)
                : { tag: 'user', attrs: { jid }, content: [{ tag: 'error', attrs: { code: '404', text: 'item-not-found' } }] };
            });
            return [{ tag: 'list', attrs: {}, content: users }];
          }
          default:
            throw new IqError(400, 'bad-request');
        }
      },
    },
  };
}
