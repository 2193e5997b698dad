import { ConflictError, KeyedSerialQueue, type AccountUser, type ChannelContext } from '@parley/core';
import { USER_SUFFIX } from '@parley/whatsapp-proto';
import { lidOf } from './sandbox-ids.js';
import { phoneNamespace, type SandboxNetwork } from './sandbox-network.js';
import type { CallPacket } from './sandbox-packets.js';
import type { SandboxOptions } from './sandbox.options.js';

export { lidOf };

/** What a sandbox phone keeps across restarts. */
export interface SandboxSession {
  linked: boolean;
  name?: string;
  about?: string;
  /** Unix seconds when `about` was set. */
  aboutSetAt?: number;
  /** Hex SHA-256 of the profile picture, when one is set. */
  pictureSha?: string;
}

/** An incoming message not read yet, for read receipts. */
export interface Unread {
  id: string;
  from: string;
  /** The chat as the sender sees it. */
  senderChat: string;
}

/**
 * One simulated phone: the state every capability of a sandbox instance shares. What it receives from
 * the network is handled by {@link DeviceInbound} (`device-inbound.ts`).
 */
export class SandboxDevice {
  readonly jid: string;
  readonly lid: string;
  connected = false;
  /** Where call signals go: the phone's calls capability, once built. */
  callSignals?: (packet: CallPacket) => Promise<void>;
  /** This phone's state documents read so far (this device is their only writer), by name. */
  private readonly documents = new Map<string, unknown>();
  private readonly locks = new KeyedSerialQueue();

  constructor(
    readonly ctx: ChannelContext,
    readonly network: SandboxNetwork,
    readonly options: SandboxOptions,
    readonly number: string,
  ) {
    this.jid = `${number}${USER_SUFFIX}`;
    this.lid = lidOf(number);
  }

  get namespace(): string {
    return phoneNamespace(this.ctx.instanceId);
  }

  /** 409 `not_connected` unless the phone is online: the first check of every operation that needs the network. */
  requireConnected(): void {
    if (!this.connected) throw new ConflictError('the instance is not connected', 'not_connected');
  }

  /**
   * One of this phone's state documents (its session, block list, peer sessions), read from storage
   * once and then kept in memory: every write goes through {@link saveDocument}, so the copy is
   * never stale, and incoming messages (which consult the block list and peer sessions) read no
   * storage. Treat the answer as read-only; save a new value instead.
   */
  async document<T>(name: string): Promise<T | null> {
    if (this.documents.has(name)) return this.documents.get(name) as T | null;
    const value = await this.ctx.storage.state.get<T>(this.namespace, name);
    // A write that finished while the read was in flight wins.
    if (!this.documents.has(name)) this.documents.set(name, value);
    return this.documents.get(name) as T | null;
  }

  /** Stores one of this phone's state documents, then keeps it as the cached copy. */
  async saveDocument<T>(name: string, value: T): Promise<void> {
    await this.ctx.storage.state.put(this.namespace, name, value);
    this.documents.set(name, value);
  }

  async session(): Promise<SandboxSession> {
    return (await this.document<SandboxSession>('session')) ?? { linked: false };
  }

  async saveSession(patch: Partial<SandboxSession>): Promise<SandboxSession> {
    const next = { ...(await this.session()), ...patch };
    await this.saveDocument('session', next);
    return next;
  }

  /**
   * Runs read-modify-write work on one of this phone's state documents one task at a time: API calls
   * and incoming packets touch the same documents concurrently.
   */
  exclusive<T>(document: string, task: () => Promise<T>): Promise<T> {
    return this.locks.run(document, task);
  }

  /** The account as the spec shows it (`user.id`, `user.lid`, `user.name`). */
  async user(): Promise<AccountUser> {
    const session = await this.session();
    const record = await this.ctx.instance();
    return {
      id: this.jid,
      lid: this.lid,
      name: session.name ?? (record.name || this.number),
      ...(session.pictureSha ? { imageProfile: `${record.user?.imageProfile ?? ''}` || undefined } : {}),
    };
  }

  /** Display name shown to peers. */
  async displayName(): Promise<string> {
    return (await this.user()).name ?? this.number;
  }

  /** Routes the call signals this phone receives to `handler` (its calls capability keeps the ring timers). */
  handleCallSignals(handler: (packet: CallPacket) => Promise<void>): void {
    this.callSignals = handler;
  }

  get instanceId(): string {
    return this.ctx.instanceId;
  }

  /** Namespace of the unread incoming messages of one chat: one small document each, so a write stays O(1). */
  private unreadNamespace(chatJid: string): string {
    return `${this.namespace}:unread:${chatJid}`;
  }

  /**
   * Keyed by send time, then id: documents of a chat are written in key order (a B-tree store
   * appends to the same few pages instead of touching a random page per message), read receipts go
   * out oldest first, and the same message tracked twice is still one document.
   */
  async trackUnread(chatJid: string, sentAt: number, unread: Unread): Promise<void> {
    await this.ctx.storage.state.put(this.unreadNamespace(chatJid), `${String(sentAt).padStart(12, '0')}:${unread.id}`, unread);
  }

  /** Forgets a chat's unread messages without sending read receipts (the chat was deleted). */
  async forgetUnread(chatJid: string): Promise<void> {
    await this.ctx.storage.state.clearPrefix(this.unreadNamespace(chatJid));
  }

  /** Sends read receipts for everything unread in a chat, and forgets them. Answers how many. */
  async readChat(chatJid: string): Promise<number> {
    const ns = this.unreadNamespace(chatJid);
    const unread = await this.ctx.storage.state.list<Unread>(ns);
    if (!unread.length) return 0;
    await this.ctx.storage.state.clearPrefix(ns);
    const now = Math.floor(this.network.now() / 1000);
    for (const { value: u } of unread) {
      await this.network.send(u.from, { kind: 'receipt', from: this.number, messageId: u.id, chatJid: u.senderChat, status: 'read', timestamp: now });
    }
    return unread.length;
  }

}
