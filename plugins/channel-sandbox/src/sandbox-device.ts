import { createHash } from 'node:crypto';
import {
  ConflictError, isGroupJid, KeyedSerialQueue, MESSAGE_STATUS_RANK, restStatusOf, USER_SUFFIX, type AccountUser, type ChannelContext, type InboundMessage,
} from '@parley/core';
import { receiveEphemeral } from './capabilities/chats.js';
import { establishSession, hasBlocked } from './capabilities/contacts.js';
import { inboundFromPacket } from './content/packet-to-inbound.js';
import { keepReceivedMedia } from './content/received-media.js';
import { phoneNamespace, type SandboxNetwork, type SandboxPhone } from './sandbox-network.js';
import type { CallPacket, MessagePacket, Packet, ReceiptPacket } from './sandbox-packets.js';
import type { SandboxOptions } from './sandbox.options.js';

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
interface Unread {
  id: string;
  from: string;
  /** The chat as the sender sees it. */
  senderChat: string;
}

/** Deterministic LID of a sandbox number (`<15 digits>@lid`). */
export function lidOf(number: string): string {
  const digest = createHash('sha256').update(`sandbox-lid:${number}`).digest();
  return `${digest.readBigUInt64BE(0).toString().slice(0, 15).padStart(15, '1')}@lid`;
}

/**
 * One simulated phone: the state every capability of a sandbox instance shares. It receives packets
 * from the network and turns them into channel events.
 */
export class SandboxDevice implements SandboxPhone {
  readonly jid: string;
  readonly lid: string;
  connected = false;
  /** Where call signals go: the phone's calls capability, once built. */
  private callSignals?: (packet: CallPacket) => Promise<void>;
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

  /**
   * Acts on a packet from the network, then waits until the server has processed the events it
   * emitted: the network deletes the packet from the inbox only after that (see
   * {@link SandboxPhone.receive}).
   */
  async receive(packet: Packet, replayed: boolean): Promise<void> {
    if (packet.kind === 'presence') {
      this.ctx.emit({ type: 'presence', jid: `${packet.from}${USER_SUFFIX}`, status: packet.status });
      return;
    }
    if (packet.kind === 'message') await this.onMessage(packet, replayed);
    else if (packet.kind === 'receipt') await this.onReceipt(packet, replayed);
    else if (packet.kind === 'notification') for (const event of packet.events) this.ctx.emit(event);
    else if (packet.kind === 'call') await this.callSignals?.(packet);
    else receiveEphemeral(this, packet);
    await this.ctx.settled?.();
  }

  /**
   * A receipt for a message this phone sent. A replayed receipt of a direct chat that the stored
   * record has reached already is dropped (a group's receipts come from each member, and the record
   * moves with the first).
   */
  private async onReceipt(packet: ReceiptPacket, replayed: boolean): Promise<void> {
    if (replayed && !isGroupJid(packet.chatJid)) {
      const stored = await this.ctx.storage.messages.get(this.ctx.instanceId, packet.messageId);
      if (stored && MESSAGE_STATUS_RANK[stored.status] >= MESSAGE_STATUS_RANK[restStatusOf(packet.status)]) return;
    }
    this.ctx.emit({
      type: 'message.status', messageId: packet.messageId, chatJid: packet.chatJid, recipientId: packet.from,
      status: packet.status, timestamp: packet.timestamp, ...(packet.status === 'read' ? { receipt: true } : {}),
    });
  }

  /**
   * A message reaches the phone: emitted, kept as unread, acknowledged to the sender with a delivery
   * receipt (a reply: the message stays in the inbox until the sender has stored the receipt). A
   * replayed message the server has stored already is only acknowledged again: the message id
   * decides, so a replay never shows a message twice.
   */
  private async onMessage(packet: MessagePacket, replayed: boolean): Promise<void> {
    // A blocked sender's direct messages never arrive (nor get a delivery receipt); group messages still do.
    if (!packet.groupJid && (await hasBlocked(this, packet.from))) return;
    if (!replayed || !(await this.ctx.storage.messages.get(this.ctx.instanceId, packet.id))) {
      await establishSession(this, packet.from);
      const message: InboundMessage = inboundFromPacket(packet, this);
      await keepReceivedMedia(this.ctx, packet);
      this.ctx.emit({ type: 'message', message });
      await this.trackUnread(message.chatJid, packet.timestamp, { id: packet.id, from: packet.from, senderChat: packet.groupJid ?? this.jid });
    }
    await this.network.reply(packet.from, {
      kind: 'receipt', from: this.number, messageId: packet.id, chatJid: packet.groupJid ?? this.jid, status: 'delivered',
      timestamp: Math.floor(Date.now() / 1000),
    }, replayed);
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
  private async trackUnread(chatJid: string, sentAt: number, unread: Unread): Promise<void> {
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
    const now = Math.floor(Date.now() / 1000);
    for (const { value: u } of unread) {
      await this.network.send(u.from, { kind: 'receipt', from: this.number, messageId: u.id, chatJid: u.senderChat, status: 'read', timestamp: now });
    }
    return unread.length;
  }

}
