import {
  addTransactionCapability, cleanMessage, Curve, decodeBinaryNode, decryptMessageNode, DEFAULT_CONNECTION_CONFIG, encodeBinaryNode, encodeWAMessage,
  generateSignalPubKey, initAuthCreds, jidNormalizedUser, makeEventBuffer, MessageRetryManager, type BaileysEventMap, type proto,
  type SignalDataSet, type SignalDataTypeMap, type SignalKeyStore, type SignalRepositoryWithLIDStore,
} from '@whiskeysockets/baileys';
// Baileys runs this on every upserted message; its index does not re-export the default export.
import processMessage from '@whiskeysockets/baileys/lib/Utils/process-message.js';
import type { FakeSocket } from './fake-socket.js';
import { silent } from './silent-logger.js';

/** A Signal key store in memory (a peer's own keys). */
function memoryKeys(): SignalKeyStore {
  const data = new Map<string, unknown>();
  return {
    get<T extends keyof SignalDataTypeMap>(type: T, ids: string[]) {
      const found: { [id: string]: SignalDataTypeMap[T] } = {};
      for (const id of ids) {
        const value = data.get(`${type}/${id}`);
        if (value !== undefined) found[id] = value as SignalDataTypeMap[T];
      }
      return found;
    },
    set(set: SignalDataSet) {
      for (const [type, items] of Object.entries(set)) {
        for (const [id, value] of Object.entries(items ?? {})) {
          if (value === null || value === undefined) data.delete(`${type}/${id}`);
          else data.set(`${type}/${id}`, value);
        }
      }
    },
  };
}

/** What a peer needs to send to the account: its JID and its own Signal session with it. */
interface Peer {
  jid: string;
  repository: SignalRepositoryWithLIDStore;
}

/** Envelope fields of one received message. */
export interface Envelope {
  id: string;
  /** Unix seconds. */
  timestamp: number;
  pushName?: string;
  /** Phone-number JID of a LID sender (the stanza's `sender_pn`, which Baileys makes `remoteJidAlt`). */
  senderPn?: string;
}

/**
 * Baileys' receive path for one account, offline. Peers hold real Signal sessions with the account
 * (X3DH from a pre-key the account published), and each message travels as Baileys' socket carries
 * a `message` stanza: encrypted by the peer, encoded to and decoded from WhatsApp's binary node
 * format, decrypted by `decryptMessageNode` (libsignal, over the adapter's auth state), kept in the
 * retry manager's recent-message cache, cleaned (`cleanMessage`: JIDs, and the keys a reaction or a
 * poll vote points at, from the account's side), then `messages.upsert`, the push-name contact update
 * and `processMessage` inside one event-buffer cycle, whose flush reaches the socket's `ev` where the
 * adapter listens. `processMessage` asks the socket's `getMessage` (the adapter's store lookup) for the
 * event an RSVP answers, as Baileys' socket does. Left out: the WebSocket and Noise transport,
 * receipts and acks.
 */
export class ReceivePath {
  private readonly buffer = makeEventBuffer(silent);
  private readonly retries = new MessageRetryManager(silent, DEFAULT_CONNECTION_CONFIG.maxMsgRetryCount);
  private readonly getMessage: NonNullable<FakeSocket['config']['getMessage']>;

  private constructor(
    private readonly socket: FakeSocket,
    private readonly peers: Map<string, Peer>,
  ) {
    const { getMessage } = socket.config;
    if (!getMessage) throw new Error('the socket was built without getMessage');
    this.getMessage = getMessage;
    this.buffer.process((events) => {
      for (const [event, data] of Object.entries(events)) socket.emit(event as keyof BaileysEventMap, data as never);
    });
  }

  /** Opens a session from each peer JID to the open `socket`'s account. */
  static async create(socket: FakeSocket, peerJids: string[]): Promise<ReceivePath> {
    const me = socket.user?.id;
    if (!me) throw new Error('the socket must be open before messages can be received');
    const { creds } = socket.authState;
    const peers = new Map<string, Peer>();
    for (const [index, jid] of peerJids.entries()) {
      const keyId = index + 1;
      const preKey = Curve.generateKeyPair();
      await socket.authState.keys.set({ 'pre-key': { [keyId]: preKey } });
      const peerCreds = initAuthCreds();
      const keys = addTransactionCapability(memoryKeys(), silent, { maxCommitRetries: 1, delayBetweenTriesMs: 1 });
      const repository = DEFAULT_CONNECTION_CONFIG.makeSignalRepository({ creds: peerCreds, keys }, silent);
      await repository.injectE2ESession({
        jid: me,
        session: {
          registrationId: creds.registrationId,
          identityKey: generateSignalPubKey(creds.signedIdentityKey.public),
          signedPreKey: {
            keyId: creds.signedPreKey.keyId, publicKey: generateSignalPubKey(creds.signedPreKey.keyPair.public), signature: creds.signedPreKey.signature,
          },
          preKey: { keyId, publicKey: generateSignalPubKey(preKey.public) },
        },
      });
      peers.set(jid, { jid, repository });
    }
    return new ReceivePath(socket, peers);
  }

  /** `from` sends `message` to the account; resolves once Baileys has processed it and flushed its events. */
  async receive(from: string, message: proto.IMessage, envelope: Envelope): Promise<void> {
    const peer = this.peers.get(from);
    const me = this.socket.user?.id;
    if (!peer || !me) throw new Error(`no session from ${from}`);
    const { type, ciphertext } = await peer.repository.encryptMessage({ jid: me, data: encodeWAMessage(message) });
    const frame = encodeBinaryNode({
      tag: 'message',
      attrs: {
        from, id: envelope.id, t: String(envelope.timestamp), type: 'text', ...(envelope.pushName ? { notify: envelope.pushName } : {}),
        ...(envelope.senderPn ? { sender_pn: envelope.senderPn } : {}),
      },
      content: [{ tag: 'enc', attrs: { v: '2', type }, content: ciphertext }],
    });
    const node = await decodeBinaryNode(frame);
    const { creds, keys } = this.socket.authState;
    this.buffer.buffer();
    try {
      const { fullMessage, decrypt } = decryptMessageNode(node, creds.me!.id, creds.me!.lid ?? '', this.socket.signalRepository, silent);
      await decrypt();
      if (fullMessage.key.remoteJid && fullMessage.key.id && fullMessage.message) {
        this.retries.addRecentMessage(fullMessage.key.remoteJid, fullMessage.key.id, fullMessage.message);
      }
      cleanMessage(fullMessage, creds.me!.id, creds.me!.lid ?? '');
      this.buffer.emit('messages.upsert', { messages: [fullMessage], type: 'notify' });
      if (fullMessage.pushName) {
        this.buffer.emit('contacts.update', [{ id: jidNormalizedUser(fullMessage.key.participant || fullMessage.key.remoteJid!), notify: fullMessage.pushName }]);
      }
      await processMessage(fullMessage, {
        shouldProcessHistoryMsg: false, ev: this.buffer, creds, keyStore: keys, logger: silent, options: {},
        signalRepository: this.socket.signalRepository, getMessage: this.getMessage,
      });
    } finally {
      this.buffer.flush();
    }
  }
}
