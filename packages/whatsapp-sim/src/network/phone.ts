import { addTransactionCapability, Curve, encodeWAMessage, initAuthCreds, proto, unpadRandomMax16 } from '@whiskeysockets/baileys';
import type { AuthenticationCreds, KeyPair } from '@whiskeysockets/baileys';
import { memoryKeyStore } from './memory-keys.js';
import { makeLibSignalRepository } from '@whiskeysockets/baileys/lib/Signal/libsignal.js';
import type { DeviceKeys } from './device-keys.js';
import { silentLogger } from './silent-logger.js';

/** One-time prekeys a simulated phone publishes at creation. */
const PHONE_PREKEYS = 50;

/** A key bundle as the server hands it out: enough for the receiver to start a Signal session. */
export interface PreKeyBundle {
  registrationId: number;
  identityKey: Buffer;
  signedPreKey: { keyId: number; publicKey: Buffer; signature: Buffer };
  preKey?: { keyId: number; publicKey: Buffer };
}

/** A message as a phone received it, decrypted. */
export interface ReceivedMessage {
  id: string;
  /** The sending device's JID, as addressed to the phone (`number:device@s.whatsapp.net`). */
  from: string;
  /** The sending account's number. */
  fromNumber: string;
  type: 'pkmsg' | 'msg' | 'skmsg';
  /** The group (`id@g.us`) of a group message. */
  group?: string;
  timestamp: number;
  /** The decrypted `proto.Message` as JSON. */
  message: Record<string, unknown>;
  /** The text of a text message, if it is one. */
  text: string | undefined;
  /** A media file it carried, as the phone downloaded and decrypted it (the bytes: `Simulator.receivedMedia`). */
  media?: { kind: string; mimetype: string | undefined; fileName: string | undefined; size: number; error?: string };
}

/** Wrappers a message's content may come in (Baileys normalizeMessageContent unwraps the same ones). */
const WRAPPERS = ['ephemeralMessage', 'viewOnceMessage', 'viewOnceMessageV2', 'viewOnceMessageV2Extension', 'documentWithCaptionMessage'] as const;

/** The content of a received message (its `message` as JSON) inside the wrappers it may come in. */
export function contentOf(message: Record<string, unknown>): Record<string, unknown> {
  for (let depth = 0; depth < 5; depth++) {
    const wrapper = WRAPPERS.find((name) => (message[name] as { message?: unknown } | undefined)?.message);
    if (!wrapper) break;
    message = (message[wrapper] as { message: Record<string, unknown> }).message;
  }
  return message;
}

/** Text of the common text-bearing message kinds. */
export function textOf(message: proto.IMessage): string | undefined {
  return message.conversation ?? message.extendedTextMessage?.text ?? message.imageMessage?.caption ?? message.documentMessage?.caption ?? undefined;
}

/**
 * An account's primary device (device 0): real Signal state (libsignal through Baileys' repository, with
 * an in-memory key store), the identity key that signs its companions' device identities, and the
 * messages it received, decrypted.
 */
export class SimPhone {
  readonly creds: AuthenticationCreds = initAuthCreds();
  readonly keys: DeviceKeys;
  readonly received: ReceivedMessage[] = [];
  private readonly store = addTransactionCapability(memoryKeyStore(), silentLogger, { maxCommitRetries: 3, delayBetweenTriesMs: 10 });
  // Peers are always addressed by phone-number JIDs on the phone's side, so no LID lookups are needed.
  private readonly signal = makeLibSignalRepository({ creds: this.creds, keys: this.store }, silentLogger, async () => []);
  private readonly ready: Promise<void>;
  /** Per group, the authors (device JIDs as the group names them) whose sender keys the phone holds. */
  private readonly senderKeyAuthors = new Map<string, Set<string>>();

  constructor() {
    const preKeys: Record<string, KeyPair> = {};
    const published = new Map<number, Buffer>();
    for (let id = 1; id <= PHONE_PREKEYS; id++) {
      const pair = Curve.generateKeyPair();
      preKeys[id] = pair;
      published.set(id, Buffer.from(pair.public));
    }
    this.ready = Promise.resolve(this.store.set({ 'pre-key': preKeys }));
    const { signedPreKey, signedIdentityKey, registrationId } = this.creds;
    this.keys = {
      registrationId,
      identityKey: Buffer.from(signedIdentityKey.public),
      signedPreKey: { id: signedPreKey.keyId, publicKey: Buffer.from(signedPreKey.keyPair.public), signature: Buffer.from(signedPreKey.signature) },
      preKeys: published,
    };
  }

  /** The identity key pair that signs device identities (the ADV account signature key). */
  get identity(): { public: Buffer; private: Buffer } {
    return { public: Buffer.from(this.creds.signedIdentityKey.public), private: Buffer.from(this.creds.signedIdentityKey.private) };
  }

  /** Whether the phone already has a Signal session with that device. */
  async hasSession(deviceJid: string): Promise<boolean> {
    return (await this.signal.validateSession(deviceJid)).exists;
  }

  /** Forgets the session with a device (a new one is about to replace it). */
  async deleteSession(deviceJid: string): Promise<void> {
    await this.signal.deleteSession([deviceJid]);
  }

  /** Starts a session with a device from the bundle the server handed out. */
  async startSession(deviceJid: string, bundle: PreKeyBundle): Promise<void> {
    await this.ready;
    await this.signal.injectE2ESession({
      jid: deviceJid,
      session: {
        registrationId: bundle.registrationId,
        identityKey: withKeyType(bundle.identityKey),
        signedPreKey: { keyId: bundle.signedPreKey.keyId, publicKey: withKeyType(bundle.signedPreKey.publicKey), signature: bundle.signedPreKey.signature },
        preKey: bundle.preKey ? { keyId: bundle.preKey.keyId, publicKey: withKeyType(bundle.preKey.publicKey) } : undefined!,
      },
    });
  }

  /** Encrypts a message for one device (the session must exist). */
  async encrypt(deviceJid: string, message: proto.IMessage): Promise<{ type: 'pkmsg' | 'msg'; ciphertext: Buffer }> {
    const { type, ciphertext } = await this.signal.encryptMessage({ jid: deviceJid, data: encodeWAMessage(message) });
    return { type: type as 'pkmsg' | 'msg', ciphertext: Buffer.from(ciphertext) };
  }

  /**
   * Decrypts one `<enc>` addressed to the phone and, when `record`, keeps it among the received messages
   * (peer traffic from its own companions only keeps the Signal state moving). Throws when it does not decrypt.
   */
  async receive(id: string, fromDevice: string, type: 'pkmsg' | 'msg', ciphertext: Buffer, timestamp: number, record = true): Promise<ReceivedMessage> {
    await this.ready;
    const message = await this.decrypt(fromDevice, type, ciphertext);
    return this.keep({ id, from: fromDevice, type, timestamp }, message, record);
  }

  /** Encrypts a group message under the phone's sender key; `distribution` is the key for members who lack it. */
  async encryptGroup(groupJid: string, meJid: string, message: proto.IMessage): Promise<{ ciphertext: Buffer; distribution: Buffer }> {
    await this.ready;
    const { ciphertext, senderKeyDistributionMessage } = await this.signal.encryptGroupMessage({ group: groupJid, meId: meJid, data: encodeWAMessage(message) });
    return { ciphertext: Buffer.from(ciphertext), distribution: Buffer.from(senderKeyDistributionMessage) };
  }

  /**
   * Decrypts a group message: the author's 1:1 copy first when there is one (it carries the author's sender
   * key, as WhatsApp clients send it; from `sessionJid` when the 1:1 session is under another address than the
   * key), then the `skmsg` under that key. Throws when either does not decrypt.
   */
  async receiveGroup(id: string, group: string, author: string, copy: { type: 'pkmsg' | 'msg'; ciphertext: Buffer } | undefined, skmsg: Buffer, timestamp: number,
    record: boolean, sessionJid = author): Promise<ReceivedMessage> {
    await this.ready;
    if (copy) {
      const direct = await this.decrypt(sessionJid, copy.type, copy.ciphertext);
      const distribution = (direct.deviceSentMessage?.message ?? direct).senderKeyDistributionMessage;
      if (distribution) await this.processDistribution(author, distribution);
    }
    const plain = await this.signal.decryptGroupMessage({ group, authorJid: author, msg: skmsg });
    return this.keep({ id, from: author, type: 'skmsg', group, timestamp }, proto.Message.decode(unpadRandomMax16(plain)), record);
  }

  /** Takes the sender key an author's distribution message carries. */
  private async processDistribution(author: string, distribution: proto.Message.ISenderKeyDistributionMessage): Promise<void> {
    await this.signal.processSenderKeyDistributionMessage({ authorJid: author, item: distribution });
    const group = distribution.groupId ?? '';
    this.senderKeyAuthors.set(group, (this.senderKeyAuthors.get(group) ?? new Set()).add(author));
  }

  /**
   * Loses the sender keys it got in `group` (as a phone restored from a backup): the next `skmsg` under one of
   * them does not decrypt. Keys live under Baileys' sender-key names, `group::user::device` (Signal/Group/sender-key-name.js).
   */
  async forgetSenderKeys(group: string): Promise<void> {
    const forgotten: Record<string, null> = {};
    for (const author of this.senderKeyAuthors.get(group) ?? []) {
      const address = this.signal.jidToSignalProtocolAddress(author);
      const dot = address.lastIndexOf('.');
      forgotten[`${group}::${address.slice(0, dot)}::${address.slice(dot + 1)}`] = null;
    }
    this.senderKeyAuthors.delete(group);
    await this.store.set({ 'sender-key': forgotten });
  }

  /** The phone's current sender-key distribution message for `group` (its own key, under `meJid`), serialized. */
  async distribution(group: string, meJid: string): Promise<Buffer> {
    return Buffer.from(await this.signal.getSenderKeyDistributionMessage({ group, meId: meJid }));
  }

  private async decrypt(fromDevice: string, type: 'pkmsg' | 'msg', ciphertext: Buffer): Promise<proto.Message> {
    const plain = await this.signal.decryptMessage({ jid: fromDevice, type, ciphertext });
    return proto.Message.decode(unpadRandomMax16(plain));
  }

  private keep(head: Pick<ReceivedMessage, 'id' | 'from' | 'type' | 'timestamp' | 'group'>, message: proto.Message, record: boolean): ReceivedMessage {
    const received: ReceivedMessage = {
      ...head, fromNumber: head.from.split(/[:@]/)[0]!,
      message: proto.Message.toObject(message, { bytes: String, longs: Number }) as Record<string, unknown>, text: textOf(message),
    };
    if (record) this.received.push(received);
    return received;
  }
}

/** libsignal wants Curve25519 public keys with their type byte; the wire carries 32 bytes. */
function withKeyType(key: Buffer): Buffer {
  return key.length === 33 ? key : Buffer.concat([Buffer.from([5]), key]);
}
