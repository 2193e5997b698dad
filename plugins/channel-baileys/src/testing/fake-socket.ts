import { EventEmitter } from 'node:events';
import { readFile } from 'node:fs/promises';
import {
  addTransactionCapability, DEFAULT_CONNECTION_CONFIG, generateWAMessage, getStream, jidEncode, proto, type AuthenticationCreds, type BaileysEventEmitter,
  type BaileysEventMap, type BinaryNode, type Contact, type UserFacingSocketConfig, type WAMediaUpload, type WAMediaUploadFunction,
} from '@whiskeysockets/baileys';
import type { BaileysSocket, SocketFactory } from '../socket.js';
import { silent } from './silent-logger.js';
import { overTheWire, parseGroupsParticipating, participatingAnswer } from './wa-groups.js';

/** One call the adapter made on a fake socket. */
export interface SocketCall {
  method: string;
  args: unknown[];
}

/** Test controls of a fake socket. */
export interface FakeControls {
  /** The configuration the adapter built the socket with. */
  readonly config: UserFacingSocketConfig;
  readonly calls: SocketCall[];
  /** Answer of a method by name (instead of its default). */
  readonly results: Map<string, unknown>;
  /** Error a method throws by name. */
  readonly failures: Map<string, Error>;
  ended: boolean;
  /**
   * How the socket introduced itself to WhatsApp (Socket/socket.js `validateConnection`): `login`
   * as `creds.me` when the creds name an account, `registration` (a new pairing, QR codes) otherwise.
   */
  readonly handshake: 'login' | 'registration';
  /** WhatsApp's answer to the `<participating>` groups query (see `participatingAnswer`); no groups by default. */
  participating: BinaryNode;
  /** Emits a Baileys event the way the socket's event buffer does. */
  emit<E extends keyof BaileysEventMap>(event: E, payload: BaileysEventMap[E]): void;
  /** Pushes a new QR code. */
  showQr(qr: string): void;
  /**
   * Opens the connection as `user`: the creds get the linked account and `me` (what pairing and the
   * login's `success` stanza store, announced with `creds.update`), then `connection: 'open'`.
   */
  open(user: Contact): void;
  /** Closes the connection with a Boom-shaped error of `code`, as Baileys' `end(error)` does (once). */
  close(code: number, message?: string): void;
  /** Arguments of every call to `method`. */
  callsTo(method: string): unknown[][];
}

export type FakeSocket = BaileysSocket & FakeControls;

/** An error shaped like Baileys' Boom errors (`output.statusCode`). */
export function boom(code: number, message = `boom ${code}`): Error {
  return Object.assign(new Error(message), { isBoom: true, output: { statusCode: code, payload: { message } } });
}

/** The linked-device identity pairing stores in `creds.account` (Utils/validate-connection.js `configureSuccessfulPairing`). */
/** When the fake phone linked the device (Unix seconds), as the signed device identity says. */
export const FAKE_LINKED_AT = 1_735_700_000;

const LINKED_ACCOUNT: AuthenticationCreds['account'] = proto.ADVSignedDeviceIdentity.fromObject({
  details: proto.ADVDeviceIdentity.encode({ rawId: 1, timestamp: FAKE_LINKED_AT, keyIndex: 1 }).finish(), accountSignatureKey: Buffer.alloc(32, 1), accountSignature: Buffer.alloc(64, 2), deviceSignature: Buffer.alloc(64, 3),
});


/** A deep copy that keeps Buffers, Uint8Arrays and Dates as they are (structuredClone would not). */
function snapshot<T>(value: T): T {
  if (Buffer.isBuffer(value)) return Buffer.from(value) as T;
  if (value instanceof Uint8Array) return new Uint8Array(value) as T;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (Array.isArray(value)) return value.map(snapshot) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, snapshot(v)])) as T;
  }
  return value;
}

/** Media "uploads" answer fixed WhatsApp paths, so Baileys builds real media messages offline. */
const fakeUpload: WAMediaUploadFunction = async (_path, { mediaType }) => ({
  mediaUrl: `https://mmg.whatsapp.net/v/t62/${mediaType}`, directPath: `/v/t62/${mediaType}`,
});

/**
 * What Baileys' `productCreate`/`productUpdate` do with the images before the query
 * (`uploadingNecessaryImages` in Utils/business.js): a URL containing `.whatsapp.net` is kept, anything
 * else is read with `getStream`, which fetches `{ url }` with the global `fetch`, and uploaded.
 */
async function uploadProductImages(images: WAMediaUpload[]): Promise<void> {
  for (const image of images) {
    if (!Buffer.isBuffer(image) && 'url' in image && image.url.toString().includes('.whatsapp.net')) continue;
    const { stream } = await getStream(image);
    for await (const _ of stream) { /* drained like Baileys' upload */ }
  }
}

/**
 * A socket that behaves like Baileys' on the surface the adapter uses: the same event names on an
 * EventEmitter `ev`, messages built by Baileys' own `generateWAMessage` (proto classes included), the
 * real signal repository (LID mapping, session deletion) over the adapter's auth state, and every
 * other method recorded and answered from {@link FakeControls.results}.
 */
export function createFakeSocket(config: UserFacingSocketConfig): FakeSocket {
  const ev = new EventEmitter();
  const calls: SocketCall[] = [];
  const results = new Map<string, unknown>();
  const failures = new Map<string, Error>();
  const keys = addTransactionCapability(config.auth.keys, silent, { maxCommitRetries: 1, delayBetweenTriesMs: 1 });
  const signalRepository = DEFAULT_CONNECTION_CONFIG.makeSignalRepository({ creds: config.auth.creds, keys }, silent);
  const deleteSession = signalRepository.deleteSession.bind(signalRepository);
  const creds = config.auth.creds;
  // Socket/socket.js applies every creds.update to the creds it holds.
  ev.on('creds.update', (update: Partial<AuthenticationCreds>) => Object.assign(creds, update));
  /** Socket/socket.js `end`: the close is emitted once, whatever ends the socket. */
  const finish = (error: Error | undefined) => {
    if (socket.ended) return;
    socket.ended = true;
    ev.emit('connection.update', { connection: 'close', lastDisconnect: { error, date: new Date(0) } });
  };

  const record = (method: string, args: unknown[]) => {
    calls.push({ method, args });
    const failure = failures.get(method);
    if (failure) throw failure;
  };
  const stub = (method: string, fallback: (...args: never[]) => unknown = () => undefined) =>
    async (...args: unknown[]) => {
      record(method, args);
      return results.has(method) ? results.get(method) : fallback(...(args as never[]));
    };

  const socket = {
    config,
    calls,
    results,
    failures,
    ended: false as boolean,
    handshake: creds.me ? 'login' as const : 'registration' as const,
    participating: participatingAnswer([]),
    ev: ev as unknown as BaileysEventEmitter,
    // The WebSocket's stanza events (`CB:<tag>`); tests emit receipt stanzas on it as WhatsApp would.
    ws: new EventEmitter() as unknown as BaileysSocket['ws'],
    // Socket/socket.js: `get user() { return authState.creds.me }`.
    get user(): Contact | undefined {
      return creds.me;
    },
    authState: { creds, keys },
    signalRepository: Object.assign(signalRepository, {
      deleteSession: async (jids: string[]) => {
        record('deleteSession', [jids]);
        await deleteSession(jids);
      },
    }),
    emit(event: string, payload: unknown) {
      ev.emit(event, payload);
    },
    showQr(qr: string) {
      ev.emit('connection.update', { qr });
    },
    open(user: Contact) {
      ev.emit('creds.update', { account: creds.account ?? LINKED_ACCOUNT, me: user });
      ev.emit('connection.update', { connection: 'open' });
    },
    close(code: number, message?: string) {
      finish(boom(code, message));
    },
    callsTo(method: string) {
      return calls.filter((c) => c.method === method).map((c) => c.args);
    },
    async end(error: Error | undefined) {
      record('end', [error]);
      finish(error);
    },
    async logout(msg?: string) {
      record('logout', [msg]);
      await socket.end(boom(401, msg ?? 'Intentional Logout'));
    },
    // Socket/socket.js `requestPairingCode`: the number becomes `creds.me` at once, announced with creds.update.
    async requestPairingCode(phoneNumber: string, customPairingCode?: string) {
      record('requestPairingCode', [phoneNumber, ...(customPairingCode ? [customPairingCode] : [])]);
      const code = (results.get('requestPairingCode') as string | undefined) ?? customPairingCode ?? 'ABCD1234';
      creds.pairingCode = code;
      creds.me = { id: jidEncode(phoneNumber, 's.whatsapp.net'), name: '~' };
      ev.emit('creds.update', creds);
      return code;
    },
    resyncAppState: stub('resyncAppState'),
    // Records the file's bytes as they are when the upload starts (a test sees a truncated file).
    waUploadToServer: async (path: string, options: { mediaType: string; fileEncSha256B64: string }) => {
      record('waUploadToServer', [await readFile(path), options.mediaType, options.fileEncSha256B64]);
      return fakeUpload(path, options as never);
    },
    fetchAccountReachoutTimelock: async () => {
      record('fetchAccountReachoutTimelock', []);
      const state = (results.get('fetchAccountReachoutTimelock') as object | undefined) ?? { isActive: false };
      ev.emit('connection.update', { reachoutTimeLock: state });
      return state;
    },
    async sendMessage(jid: string, content: unknown, options: Record<string, unknown> = {}) {
      // Baileys fills defaults into the content it is given; record what the caller handed over.
      record('sendMessage', [jid, snapshot(content), snapshot(options)]);
      if (results.has('sendMessage')) return results.get('sendMessage');
      return generateWAMessage(jid, content as never, {
        logger: silent, userJid: socket.user?.id ?? '', upload: fakeUpload, ...options,
      });
    },
    relayMessage: stub('relayMessage', (_jid: string, _message: unknown, opts: { messageId?: string }) => opts.messageId),
    sendPresenceUpdate: stub('sendPresenceUpdate'),
    createCallLink: stub('createCallLink', () => 'Xq3PZnd8BQw'),
    updateMediaMessage: stub('updateMediaMessage', (m: unknown) => m),
    refreshMediaConn: stub('refreshMediaConn', () => ({ hosts: [], auth: '', ttl: 0, fetchDate: new Date() })),
    readMessages: stub('readMessages'),
    chatModify: stub('chatModify'),
    presenceSubscribe: stub('presenceSubscribe'),
    fetchPrivacySettings: stub('fetchPrivacySettings', () => ({})),
    updateReadReceiptsPrivacy: stub('updateReadReceiptsPrivacy'),
    updateProfilePicturePrivacy: stub('updateProfilePicturePrivacy'),
    updateStatusPrivacy: stub('updateStatusPrivacy'),
    updateOnlinePrivacy: stub('updateOnlinePrivacy'),
    updateLastSeenPrivacy: stub('updateLastSeenPrivacy'),
    updateGroupsAddPrivacy: stub('updateGroupsAddPrivacy'),
    updateCallPrivacy: stub('updateCallPrivacy'),
    updateMessagesPrivacy: stub('updateMessagesPrivacy'),
    addOrEditContact: stub('addOrEditContact'),
    removeContact: stub('removeContact'),
    updateBlockStatus: stub('updateBlockStatus'),
    fetchBlocklist: stub('fetchBlocklist', () => []),
    fetchStatus: stub('fetchStatus', () => []),
    // Everyone is on this network, under the number asked about, unless a test answers otherwise.
    onWhatsApp: stub('onWhatsApp', (...jids: string[]) => jids.map((jid) => ({ jid: jid.includes('@') ? jid : `${jid}@s.whatsapp.net`, exists: true }))),
    addLabel: stub('addLabel'),
    addChatLabel: stub('addChatLabel'),
    removeChatLabel: stub('removeChatLabel'),
    updateProfilePicture: stub('updateProfilePicture'),
    removeProfilePicture: stub('removeProfilePicture'),
    profilePictureUrl: stub('profilePictureUrl'),
    updateProfileName: stub('updateProfileName'),
    updateProfileStatus: stub('updateProfileStatus'),
    getBusinessProfile: stub('getBusinessProfile'),
    groupMetadata: stub('groupMetadata'),
    groupCreate: stub('groupCreate'),
    groupLeave: stub('groupLeave'),
    groupUpdateSubject: stub('groupUpdateSubject'),
    groupUpdateDescription: stub('groupUpdateDescription'),
    groupSettingUpdate: stub('groupSettingUpdate'),
    groupParticipantsUpdate: stub('groupParticipantsUpdate', () => []),
    groupRequestParticipantsList: stub('groupRequestParticipantsList', () => []),
    groupRequestParticipantsUpdate: stub('groupRequestParticipantsUpdate', () => []),
    groupInviteCode: stub('groupInviteCode'),
    groupGetInviteInfo: stub('groupGetInviteInfo'),
    groupAcceptInvite: stub('groupAcceptInvite'),
    groupJoinApprovalMode: stub('groupJoinApprovalMode'),
    // Socket/groups.js: the answer is parsed by Baileys' own code, and every group is emitted as groups.update.
    async groupFetchAllParticipating() {
      record('groupFetchAllParticipating', []);
      const data = parseGroupsParticipating(await overTheWire(socket.participating));
      ev.emit('groups.update', Object.values(data));
      return data;
    },
    communityCreate: stub('communityCreate'),
    communityCreateGroup: stub('communityCreateGroup'),
    communityLeave: stub('communityLeave'),
    communityUpdateSubject: stub('communityUpdateSubject'),
    communityInviteCode: stub('communityInviteCode'),
    communityAcceptInvite: stub('communityAcceptInvite'),
    communityRequestParticipantsList: stub('communityRequestParticipantsList', () => []),
    communityRequestParticipantsUpdate: stub('communityRequestParticipantsUpdate', () => []),
    communityParticipantsUpdate: stub('communityParticipantsUpdate', () => []),
    communityToggleEphemeral: stub('communityToggleEphemeral'),
    communitySettingUpdate: stub('communitySettingUpdate'),
    communityMemberAddMode: stub('communityMemberAddMode'),
    communityJoinApprovalMode: stub('communityJoinApprovalMode'),
    communityFetchLinkedGroups: stub('communityFetchLinkedGroups', (jid: string) => ({ communityJid: jid, isCommunity: true, linkedGroups: [] })),
    getCatalog: stub('getCatalog', () => ({ products: [], nextPageCursor: undefined })),
    getCollections: stub('getCollections', () => ({ collections: [] })),
    productCreate: async (create: { images: WAMediaUpload[] }) => {
      record('productCreate', [snapshot(create)]);
      await uploadProductImages(create.images);
      return results.get('productCreate');
    },
    productUpdate: async (id: string, update: { images: WAMediaUpload[] }) => {
      record('productUpdate', [id, snapshot(update)]);
      await uploadProductImages(update.images);
      return results.get('productUpdate');
    },
    productDelete: stub('productDelete', () => ({ deleted: 1 })),
    getOrderDetails: stub('getOrderDetails'),
    rejectCall: stub('rejectCall'),
  };
  // Every member of the real socket's surface must exist on the fake.
  const surface: Record<keyof BaileysSocket, unknown> = socket;
  return surface as unknown as FakeSocket;
}

/** A socket factory that keeps every socket it built, newest last. */
export class FakeSockets {
  readonly all: FakeSocket[] = [];
  private waiting: ((socket: FakeSocket) => void)[] = [];

  readonly factory: SocketFactory = (config) => {
    const socket = createFakeSocket(config);
    this.all.push(socket);
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve(socket);
    return socket;
  };

  /** The newest socket. */
  last(): FakeSocket {
    const socket = this.all[this.all.length - 1];
    if (!socket) throw new Error('no socket was created');
    return socket;
  }

  /** Resolves with the next socket the adapter builds (or the newest, when `count` already exist). */
  next(count = this.all.length + 1): Promise<FakeSocket> {
    if (this.all.length >= count) return Promise.resolve(this.all[count - 1]!);
    return new Promise((resolve) => this.waiting.push(resolve));
  }
}
