import {
  getMessages, isParleyError, MESSAGE_STATUS_RANK, restStatusOf, setStatuses, upsertMessages, STATUS_BROADCAST, statusAdvances, type ChannelEvent, type ChannelEventOf, type Chat, type Clock,
  type InboundMessage, type InstanceRecord, type Logger, type MessageRecord, type MessageStatus, type Storage,
} from '@parley/core';
import type { InstanceRegistry } from '../instances/instance-registry.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import type { EventSubscriber } from './event-bus.js';
import { recordMediaIds } from './media-ids.js';
import { OwnCopies, overlays, type SentRecord } from './sent-records.js';

const MEDIA_TYPES = new Set(['image', 'audio', 'video', 'document', 'sticker']);
/** Error codes of received media refused by a limit of the configuration (`media.maxDownloadBytes`, `media.downloadTimeoutMs`, `media.downloadIdleMs`). */
const RECEIVED_MEDIA_LIMITS = new Set(['media_too_large', 'media_download_timeout']);

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
  /** Own messages stored from `message` events: the record of a send whose copy the channel reported is not stored twice. */
  private readonly ownCopies = new OwnCopies();
  /** Records whose read receipt was sent (`mark_messages`): an event handled again after an outage does not send it twice. */
  private readonly readSent = new WeakSet<MessageRecord>();

  constructor(
    private readonly storage: Storage,
    private readonly registry: InstanceRegistry,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  /**
   * Asks the channel, once per opened connection, for the account's business profile (spec 2.1
   * `businessProfile`) and keeps it on the instance record; a personal account has none (the record keeps
   * none). It runs beside the event stream, which does not wait for the channel's answer.
   */
  private async refreshBusinessProfile(runtime: InstanceRuntime): Promise<void> {
    const profile = runtime.main.capabilities.profile;
    if (!profile?.businessProfile) return;
    try {
      const found = await profile.businessProfile();
      if (found) await this.registry.update(runtime.id, { businessProfile: found });
    } catch (error) {
      this.logger.warn({ instance: runtime.id, err: error }, 'could not read the business profile');
    }
  }

  async handle(event: ChannelEvent, _instance: InstanceRecord, runtime: InstanceRuntime): Promise<void> {
    const id = runtime.id;
    switch (event.type) {
      case 'message':
        return this.projectMessages(id, [event], runtime);
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
          void this.refreshBusinessProfile(runtime);
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
   * A run of consecutive events (see `EventSubscriber.handleBatch`): messages and statuses, mixed, are
   * applied in {@link inOrderSegments} — each segment's messages projected together, then its statuses in
   * one storage call, which ends as applying its events one by one would; other types one by one.
   */
  async handleBatch(events: readonly ChannelEvent[], instance: InstanceRecord, runtime: InstanceRuntime): Promise<void> {
    if (!events.every((e) => e.type === 'message' || e.type === 'message.status')) {
      for (const event of events) await this.handle(event, instance, runtime);
      return;
    }
    for (const segment of inOrderSegments(events as MessageOrStatus[])) await this.projectSegment(runtime, segment);
  }

  /**
   * A segment's messages, then its statuses: the statuses of messages outside the segment (stored
   * before, or not yet: early) beside the messages' projection, those of the segment's own messages
   * after it.
   */
  private async projectSegment(runtime: InstanceRuntime, events: readonly MessageOrStatus[]): Promise<void> {
    const messages = events.filter((e): e is ChannelEventOf<'message'> => e.type === 'message');
    // Group receipts of single members do not move the message's own status; watermark receipts (Messenger) name no message.
    const statuses = events.filter((e): e is ChannelEventOf<'message.status'> => e.type === 'message.status' && !e.participant && !!e.messageId);
    const own = new Set(messages.map((e) => e.message.id));
    const later = statuses.filter((e) => own.has(e.messageId!));
    const beside = later.length ? statuses.filter((e) => !own.has(e.messageId!)) : statuses;
    const first: Promise<unknown>[] = [];
    if (messages.length) first.push(this.projectMessages(runtime.id, messages, runtime));
    if (beside.length) first.push(this.applyStatuses(runtime.id, beside));
    await settleAll(first);
    if (later.length) await this.applyStatuses(runtime.id, later);
  }

  /** Statuses applied in one storage call (`setStatuses`); one whose message is not stored yet is kept as early. */
  private async applyStatuses(id: string, events: readonly ChannelEventOf<'message.status'>[]): Promise<void> {
    const updates = events.map((e) => ({ id: e.messageId!, status: restStatusOf(e.status) }));
    const exists = await setStatuses(this.storage.messages, id, updates);
    updates.forEach((update, i) => {
      if (!exists[i]) this.rememberEarly(id, update.id, update.status);
    });
  }

  /**
   * Stores messages with their chats and contacts: the reads of the whole run, then its writes, each
   * issued together — on a networked store each group is one round trip instead of one per call (an
   * instance's events wait for each other, so round trips here bound its send rate). Chats and
   * contacts named by several messages of the run are worked out in memory and written once. A run
   * that names one message twice is projected one message at a time.
   */
  private async projectMessages(id: string, events: readonly ChannelEventOf<'message'>[], runtime: InstanceRuntime): Promise<void> {
    if (events.length > 1 && new Set(events.map((e) => e.message.id)).size < events.length) {
      for (const event of events) await this.projectMessages(id, [event], runtime);
      return;
    }
    // Status stories (`status@broadcast`) come from many senders: neither the chat nor a contact is named after one.
    const direct = (m: InboundMessage) => m.chatType === 'individual' && m.chatJid !== STATUS_BROADCAST;
    const namesContact = (m: InboundMessage) => !m.fromMe && direct(m) && !!m.pushName;
    const chatIds = [...new Set(events.map((e) => e.message.chatJid))];
    const contactIds = [...new Set(events.filter((e) => namesContact(e.message)).map((e) => e.message.chatJid))];
    const [prepared, chats, contacts] = await Promise.all([
      this.prepareMessages(id, events.map((e) => Object.assign({}, e.message.record, { provider: e.provider }))),
      Promise.all(chatIds.map((jid) => this.storage.chats.get(id, jid))),
      Promise.all(contactIds.map((jid) => this.storage.contacts.get(id, jid))),
    ]);
    const chatNow = new Map(chatIds.map((jid, i) => [jid, chats[i] ?? { id: jid, name: jid, timestamp: 0, unreadCount: 0 }]));
    const chatChanges = new Map<string, Partial<Chat> & { id: string }>();
    const notify = new Map(contactIds.map((jid, i) => [jid, contacts[i]?.notify]));
    const contactChanges = new Map<string, string>();
    for (const [i, { message: m }] of events.entries()) {
      const chat = chatNow.get(m.chatJid)!;
      // A message stored already (a channel's replay after a crash, a repeated delivery) was counted when it was stored.
      const unread = m.fromMe || m.content.type === 'reaction' || prepared[i]!.existed ? 0 : 1;
      const change = {
        id: m.chatJid,
        timestamp: Math.max(m.timestamp, chat.timestamp),
        unreadCount: chat.unreadCount + unread,
        ...(chat.name && chat.name !== chat.id ? {} : direct(m) && m.pushName && !m.fromMe ? { name: m.pushName } : {}),
      };
      // Writes are the cost of this path: skip the ones that would change nothing.
      const stored = chats[chatIds.indexOf(m.chatJid)];
      if (!stored || chat.timestamp !== change.timestamp || chat.unreadCount !== change.unreadCount || ('name' in change && chat.name !== change.name)) {
        chatNow.set(m.chatJid, { ...chat, ...change });
        chatChanges.set(m.chatJid, { ...chatChanges.get(m.chatJid), ...change });
      }
      if (namesContact(m) && notify.get(m.chatJid) !== m.pushName) {
        notify.set(m.chatJid, m.pushName);
        contactChanges.set(m.chatJid, m.pushName!);
      }
    }
    const writes: Promise<unknown>[] = [upsertMessages(this.storage.messages, id, prepared.filter((p) => p.write).map((p) => p.stored))];
    for (const change of chatChanges.values()) writes.push(this.storage.chats.upsert(id, change));
    for (const [jid, name] of contactChanges) writes.push(this.storage.contacts.upsert(id, { id: jid, notify: name }));
    writes.push(...recordMediaIds(this.storage.state, id, events.map((e) => e.message)));
    await settleAll(writes);
    for (const [i, event] of events.entries()) {
      const m = event.message;
      if (m.fromMe) this.ownCopies.remember(id, prepared[i]!.stored);
      if (runtime.record.flags.saveMedia && MEDIA_TYPES.has(m.content.type)) await this.saveMedia(event, runtime);
      if (runtime.record.flags.markMessages && !m.fromMe) {
        // mark_messages: read on arrival — the sender gets its read receipt, the record reads READ.
        await this.storage.messages.setStatus(id, m.id, 'READ');
        if (this.readSent.has(m.record)) continue;
        this.readSent.add(m.record);
        runtime.adapter(event.provider).capabilities.chats?.markRead(m.chatJid, true).catch((err: unknown) =>
          this.logger.warn({ err, instance: id }, 'auto mark-read failed'));
      }
    }
  }

  /**
   * Stores a message record without ever moving its status backwards (a history sync may carry a
   * message stored already, further on), then applies a status that came early.
   */
  private async storeMessage(instanceId: string, record: MessageRecord): Promise<void> {
    const { stored, write } = (await this.prepareMessages(instanceId, [record]))[0]!;
    if (write) await this.storage.messages.upsert(instanceId, stored);
  }

  /**
   * Stores the records of messages their channel took, which the send path publishes
   * (`EventBus.publishSent`): the only writer of sent records. A record whose own copy the channel
   * reported before (a `message` event of the same instance and message id, stored just before, that
   * holds everything the record does) is not written again; any other is stored as {@link storeMessage}
   * stores it, with its chat when the message was not stored before. The media of a media send is kept
   * as the copy GET media serves (spec 4.4); a copy that cannot be kept is logged, and GET media then
   * asks the channel.
   */
  async handleSent(sent: readonly SentRecord[], runtime: InstanceRuntime): Promise<void> {
    const id = runtime.id;
    if (sent.length > 1 && new Set(sent.map((s) => s.record.key.id)).size < sent.length) {
      for (const one of sent) await this.handleSent([one], runtime);
      return;
    }
    const records = sent.map((s) => s.record).filter((record) => !this.ownCopies.covers(id, record));
    const prepared = await this.prepareMessages(id, records);
    const writes: Promise<unknown>[] = [upsertMessages(this.storage.messages, id, prepared.filter((p) => p.write).map((p) => p.stored))];
    const chats = new Map<string, number>();
    for (const [i, { key, messageTimestamp }] of records.entries()) {
      if (!prepared[i]!.existed) chats.set(key.remoteJid, Math.max(chats.get(key.remoteJid) ?? 0, Number(messageTimestamp)));
    }
    for (const [jid, timestamp] of chats) writes.push(this.storage.chats.upsert(id, { id: jid, timestamp }));
    await settleAll(writes);
    for (const { record, media } of sent) {
      if (!media) continue;
      try {
        await this.storage.media.put(id, record.key.id, media);
      } catch (err) {
        this.logger.warn({ err, instance: id, message: record.key.id }, 'sent media not kept: GET media will ask the channel');
      }
    }
  }

  /**
   * The records to store (each status never moved backwards, an early status applied) and whether each
   * needs writing, read together (`getMessages`). The ids are distinct (callers project a run naming one
   * message twice one message at a time).
   */
  private async prepareMessages(instanceId: string, records: readonly MessageRecord[]): Promise<{ stored: MessageRecord; existed: boolean; write: boolean }[]> {
    if (records.length === 0) return [];
    const found = await getMessages(this.storage.messages, instanceId, records.map((record) => record.key.id));
    return records.map((record, i) => this.prepared(instanceId, record, found[i] ?? null));
  }

  /** One record of {@link prepareMessages}, against what is stored under its id (`existing`). */
  private prepared(instanceId: string, record: MessageRecord, existing: MessageRecord | null): { stored: MessageRecord; existed: boolean; write: boolean } {
    let status = record.status;
    if (existing && MESSAGE_STATUS_RANK[existing.status] > MESSAGE_STATUS_RANK[status]) status = existing.status;
    const earlyKey = `${instanceId}/${record.key.id}`;
    const early = this.early.get(earlyKey);
    if (early) {
      this.early.delete(earlyKey);
      if (statusAdvances(status, early.status)) status = early.status;
    }
    const stored = { ...record, status };
    return { stored, existed: existing !== null, write: !existing || existing.status !== status || !overlays(existing, stored) };
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

  private async saveMedia(event: ChannelEventOf<'message'>, runtime: InstanceRuntime): Promise<void> {
    const messaging = runtime.adapter(event.provider).capabilities.messaging;
    if (!messaging?.downloadMedia) return;
    try {
      const blob = await messaging.downloadMedia(event.message.record);
      if (blob) await this.storage.media.put(runtime.id, event.message.id, blob);
    } catch (err) {
      // The message is stored either way; the media endpoint retries the download on demand.
      if (isParleyError(err) && RECEIVED_MEDIA_LIMITS.has(err.code)) {
        // A remote party's choice (a size, a slow host), not a fault: one line with the limit, no stack. GET media answers the same error.
        const { limit, limitMs, size, setting } = err.details as { limit?: number; limitMs?: number; size?: number; setting?: string };
        this.logger.warn({
          instance: runtime.id, message: event.message.id, setting,
          ...(limit === undefined ? {} : { limit }), ...(limitMs === undefined ? {} : { limitMs }), ...(size === undefined ? {} : { size }),
        }, `received media not saved: ${err.message}`);
        return;
      }
      this.logger.warn({ err, instance: runtime.id, message: event.message.id }, 'saving incoming media failed');
    }
  }
}

type MessageOrStatus = ChannelEventOf<'message'> | ChannelEventOf<'message.status'>;

/**
 * Cuts a run of messages and statuses into segments, in order, within which applying every message
 * first and then every status ends as applying the events one by one: a segment ends before a message
 * that one of its statuses named (a status that came before its message keeps waiting for it as an early
 * status) or that it holds already (a copy stored again after a status of the first one). A status of a
 * message earlier in its segment applies after it; the others name messages no write of the segment
 * touches. A run of the send path's interleaved events (m1, s1, s1, m2, s2, m3, …) is one segment.
 */
function inOrderSegments(events: readonly MessageOrStatus[]): MessageOrStatus[][] {
  const segments: MessageOrStatus[][] = [];
  let current: MessageOrStatus[] = [];
  const named = new Set<string>();
  for (const event of events) {
    const id = event.type === 'message' ? event.message.id : event.messageId;
    if (event.type === 'message' && named.has(id!)) {
      segments.push(current);
      current = [];
      named.clear();
    }
    current.push(event);
    if (id) named.add(id);
  }
  if (current.length) segments.push(current);
  return segments;
}

/** Waits for every write, then fails with the first failure: no write is left running when the event's task ends. */
async function settleAll(writes: Promise<unknown>[]): Promise<void> {
  for (const outcome of await Promise.allSettled(writes)) if (outcome.status === 'rejected') throw outcome.reason;
}
