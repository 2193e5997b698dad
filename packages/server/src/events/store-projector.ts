import {
  MESSAGE_STATUS_RANK, restStatusOf, STATUS_BROADCAST, statusAdvances, type ChannelEvent, type Clock, type InstanceRecord, type Logger, type MessageRecord, type MessageStatus, type Storage,
} from '@parley/core';
import type { InstanceRegistry } from '../instances/instance-registry.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import type { EventSubscriber } from './event-bus.js';

const MEDIA_TYPES = new Set(['image', 'audio', 'video', 'document', 'sticker']);

/**
 * Whether writing `next` over `current` would store what is stored already: every field of `next`
 * serializes as the same field of `current` (what `{ ...current, ...next }` serialized would tell,
 * without serializing the whole record twice). An undefined field of `next` counts as absent.
 */
function overlays(current: MessageRecord, next: MessageRecord): boolean {
  const stored = current as unknown as Record<string, unknown>;
  for (const [field, value] of Object.entries(next)) {
    if (value === undefined) {
      if (stored[field] !== undefined) return false;
    } else if (value !== stored[field] && JSON.stringify(value) !== JSON.stringify(stored[field])) {
      return false;
    }
  }
  return true;
}

/** Statuses that arrived before their message are kept this long, at most this many per process. */
export const EARLY_STATUS_TTL_MS = 60_000;
export const EARLY_STATUS_MAX = 10_000;

/**
 * Projects channel events onto storage: messages and their statuses, chats, contacts, the instance's
 * connection state and health; downloads incoming media when `save_media` is on; marks incoming
 * messages read when `mark_messages` is on.
 */
export class StoreProjector implements EventSubscriber {
  readonly name = 'store';
  /** Statuses seen before their message was stored, by `instance/messageId`. */
  private readonly early = new Map<string, { status: MessageStatus; at: number }>();
  /** Records stored from a `message` event, by identity: the send path skips what the channel's own echo stored. */
  private readonly projected = new WeakSet<MessageRecord>();

  constructor(
    private readonly storage: Storage,
    private readonly registry: InstanceRegistry,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async handle(event: ChannelEvent, _instance: InstanceRecord, runtime: InstanceRuntime): Promise<void> {
    const id = runtime.id;
    switch (event.type) {
      case 'message': {
        const m = event.message;
        await this.storeMessage(id, Object.assign({}, m.record, { provider: event.provider }));
        this.projected.add(m.record);
        const chat = await this.storage.chats.get(id, m.chatJid);
        // Status stories (`status@broadcast`) come from many senders: neither the chat nor a contact is named after one.
        const direct = m.chatType === 'individual' && m.chatJid !== STATUS_BROADCAST;
        const change = {
          id: m.chatJid,
          timestamp: Math.max(m.timestamp, chat?.timestamp ?? 0),
          unreadCount: (chat?.unreadCount ?? 0) + (m.fromMe || m.content.type === 'reaction' ? 0 : 1),
          ...(chat?.name && chat.name !== chat.id ? {} : direct && m.pushName && !m.fromMe ? { name: m.pushName } : {}),
        };
        // Writes are the cost of this path: skip the ones that would change nothing.
        if (!chat || chat.timestamp !== change.timestamp || chat.unreadCount !== change.unreadCount || ('name' in change && chat.name !== change.name)) {
          await this.storage.chats.upsert(id, change);
        }
        if (!m.fromMe && direct && m.pushName && (await this.storage.contacts.get(id, m.chatJid))?.notify !== m.pushName) {
          await this.storage.contacts.upsert(id, { id: m.chatJid, notify: m.pushName });
        }
        if (runtime.record.flags.saveMedia && MEDIA_TYPES.has(m.content.type)) await this.saveMedia(event, runtime);
        if (runtime.record.flags.markMessages && !m.fromMe) {
          // mark_messages: read on arrival — the sender gets its read receipt, the record reads READ.
          await this.storage.messages.setStatus(id, m.id, 'READ');
          runtime.adapter(event.provider).capabilities.chats?.markRead(m.chatJid, true).catch((err: unknown) =>
            this.logger.warn({ err, instance: id }, 'auto mark-read failed'));
        }
        return;
      }
      case 'message.status': {
        // Group receipts of single members do not move the message's own status; watermark receipts
        // (Messenger) name no message.
        if (event.participant || !event.messageId) return;
        const status = restStatusOf(event.status);
        if (!(await this.storage.messages.setStatus(id, event.messageId, status))) this.rememberEarly(id, event.messageId, status);
        return;
      }
      case 'message.delete':
        await this.storage.messages.delete(id, event.messageIds);
        return;
      case 'chats.upsert':
        for (const chat of event.chats) await this.storage.chats.upsert(id, chat);
        return;
      case 'chats.delete':
        for (const jid of event.jids) {
          await this.storage.chats.delete(id, jid);
          await this.storage.messages.deleteChat(id, jid);
        }
        return;
      case 'contacts.upsert':
        for (const contact of event.contacts) await this.storage.contacts.upsert(id, contact);
        return;
      case 'contacts.delete':
        for (const jid of event.jids) await this.storage.contacts.delete(id, jid);
        return;
      case 'history':
        for (const record of event.messages) await this.storeMessage(id, Object.assign({}, record, { provider: event.provider }));
        for (const chat of event.chats) await this.storage.chats.upsert(id, chat);
        for (const contact of event.contacts) await this.storage.contacts.upsert(id, contact);
        return;
      case 'connection':
        if (event.provider !== runtime.main.channel) return;
        if (event.status === 'open') {
          await this.registry.update(id, { phoneConnected: true, user: event.user, wantsConnection: true });
        } else {
          // A close the channel will not recover from by itself (logged out, a final close such as WhatsApp's
          // 440/403/411, reconnection given up, a QR code left unscanned) ends the wish to be connected: a
          // restarted server does not connect again; only POST /{key}/instance does.
          await this.registry.update(id, event.loggedOut
            ? { phoneConnected: false, user: null, wantsConnection: false }
            : event.willReconnect ? { phoneConnected: false } : { phoneConnected: false, wantsConnection: false });
        }
        return;
      case 'health':
        await this.registry.update(id, { health: event.status });
        return;
      default:
        return;
    }
  }

  /**
   * Stores a message record without ever moving its status backwards (the same message can arrive
   * from the send path and as the channel's own echo), then applies a status that came early.
   */
  async storeMessage(instanceId: string, record: MessageRecord): Promise<MessageRecord> {
    return (await this.storeMessageIfChanged(instanceId, record)).stored;
  }

  /**
   * Whether this very record object was stored from a `message` event: a channel that reports its
   * own sends (the sandbox does) hands the send path and the echo the same record, and once the echo
   * is stored the send path has nothing left to write.
   */
  wasProjected(record: MessageRecord): boolean {
    return this.projected.has(record);
  }

  /**
   * Like {@link storeMessage}; also tells whether the message was already stored (the send path
   * then skips work the channel's own echo already did).
   */
  async storeMessageIfChanged(instanceId: string, record: MessageRecord): Promise<{ stored: MessageRecord; existed: boolean }> {
    const existing = await this.storage.messages.get(instanceId, record.key.id);
    let status = record.status;
    if (existing && MESSAGE_STATUS_RANK[existing.status] > MESSAGE_STATUS_RANK[status]) status = existing.status;
    const earlyKey = `${instanceId}/${record.key.id}`;
    const early = this.early.get(earlyKey);
    if (early) {
      this.early.delete(earlyKey);
      if (statusAdvances(status, early.status)) status = early.status;
    }
    const stored = { ...record, status };
    if (!existing || existing.status !== status || !overlays(existing, stored)) await this.storage.messages.upsert(instanceId, stored);
    return { stored, existed: existing !== null };
  }

  private rememberEarly(instanceId: string, messageId: string, status: MessageStatus): void {
    const now = this.clock.now();
    if (this.early.size >= EARLY_STATUS_MAX) {
      for (const [key, value] of this.early) {
        if (now - value.at > EARLY_STATUS_TTL_MS || this.early.size >= EARLY_STATUS_MAX) this.early.delete(key);
        else break;
      }
    }
    const key = `${instanceId}/${messageId}`;
    const previous = this.early.get(key);
    if (!previous || statusAdvances(previous.status, status)) {
      this.early.delete(key);
      this.early.set(key, { status, at: now });
    }
  }

  private async saveMedia(event: Extract<ChannelEvent, { type: 'message' }>, runtime: InstanceRuntime): Promise<void> {
    const messaging = runtime.adapter(event.provider).capabilities.messaging;
    if (!messaging?.downloadMedia) return;
    try {
      const blob = await messaging.downloadMedia(event.message.record);
      if (blob) await this.storage.media.put(runtime.id, event.message.id, blob);
    } catch (err) {
      // The message is stored either way; the media endpoint retries the download on demand.
      this.logger.warn({ err, instance: runtime.id, message: event.message.id }, 'saving incoming media failed');
    }
  }
}
