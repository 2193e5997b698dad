import type { ChannelEventPayload, ContactChange, EventSink, InboundMessage, InstanceFlags, Logger } from '@parley/core';
import { dropsStatusStory, isOthersStory } from '@parley/core';
import { isJidGroup, isJidNewsletter, type BaileysEventMap, type BinaryNode, type GroupMetadata, type MessageUpsertType, type WAMessage, type WAMessageKey } from '@whiskeysockets/baileys';
import type { HealthMonitor } from '../health/health-monitor.js';
import type { LabelStore } from '../labels/label-store.js';
import { callEvent, participantsEvent, presenceEvents } from '../mapping/inbound-events.js';
import { historyBatch } from '../mapping/history.js';
import type { InboundEnv } from '../mapping/inbound-env.js';
import { mapInboundMessage } from '../mapping/inbound-message.js';
import { statusesFromReceipt, statusesFromUpdate, statusFromAck } from '../mapping/inbound-status.js';
import { chatChange, chatUpdateChange, contactChange, PICTURE_CHANGED, toGroup } from '../mapping/resources.js';
import { ContactPictures } from './contact-pictures.js';
import { announcedGroupChange, groupUpdateChange } from './group-updates.js';
import { ReceiptStanzas } from './receipt-stanzas.js';
import { ReportedStatuses } from './reported-statuses.js';
import { resendUnacked } from './resend.js';
import type { ServerAcks } from './server-acks.js';
import { UndecryptedMessages } from './undecrypted.js';
import type { BaileysSocket } from '../socket.js';
import { BoundedCache } from '../util/bounded-cache.js';
import type { GroupMetadataCache } from '../util/group-cache.js';
import { isLidJid, normalizeJid } from '../util/jids.js';

/** What the router needs besides the socket. */
export interface EventRouterDeps {
  emit: EventSink;
  health: HealthMonitor;
  labels: LabelStore;
  groupCache: GroupMetadataCache;
  logger: Logger;
  /** Mapping environment of a socket (own JIDs, LID resolution, clock). */
  env(socket: BaileysSocket): InboundEnv;
  /** The instance's behaviour flags, read when a batch needs them (they change at run time). */
  flags(): Promise<InstanceFlags>;
  /** The server's acks of the instance's sends (shared with the messaging capability, which announces them). */
  acks: ServerAcks;
  /** How long a message that did not decrypt waits for a resend before it is reported (plugin option `undecryptableGraceMs`). */
  undecryptableGraceMs: number;
}

type Handlers = { [E in keyof BaileysEventMap]?: (payload: BaileysEventMap[E]) => Promise<void> };

/**
 * Maps Baileys events of one socket to normalized channel events. Handlers run one at a time in
 * arrival order (LID lookups and label writes are asynchronous), so events leave in the order
 * WhatsApp sent them.
 */
export class EventRouter {
  private queue: Promise<void> = Promise.resolve();
  private readonly undecrypted: UndecryptedMessages;
  private readonly receipts = new ReceiptStanzas();
  /** A status moves once per recipient (a group's member), however many of its devices send the receipt. */
  private readonly reported = new ReportedStatuses();
  /**
   * Ids of live messages a history set carried (see `historyBatch`), already reported. Baileys' buffer keeps
   * an upsert that came before a history set holding its key, and flushes the set first: the upsert of the
   * same window is that message again, not a second one.
   */
  private readonly liveFromHistory = new BoundedCache<true>({ max: 1_000, ttlMs: 60_000 });
  /** New profile pictures' URLs, fetched outside the queue and reported through it. */
  private readonly pictures = new ContactPictures((work) => this.enqueue('profile picture', work), (jid, imgUrl) => {
    this.deps.emit({ type: 'contacts.upsert', contacts: [{ id: jid, imgUrl }] });
  });

  constructor(private readonly deps: EventRouterDeps) {
    // Reported through the queue, so it leaves in order with the events handled meanwhile.
    this.undecrypted = new UndecryptedMessages((message) => this.enqueue('undecrypted message', async () => {
      this.deps.emit({ type: 'message', message });
    }), deps.undecryptableGraceMs);
  }

  /** Subscribes to a socket's events; answers the function that unsubscribes. */
  listen(socket: BaileysSocket): () => void {
    const handlers = this.handlers(socket);
    type Listener = (payload: BaileysEventMap[keyof BaileysEventMap]) => void;
    const listeners: [keyof BaileysEventMap, Listener][] = [];
    for (const [event, handler] of Object.entries(handlers) as [keyof BaileysEventMap, (p: unknown) => Promise<void>][]) {
      const listener: Listener = (payload) => this.enqueue(event, () => handler(payload));
      socket.ev.on(event, listener);
      listeners.push([event, listener]);
    }
    // Sends an earlier socket wrote into a dead link go out again once this one is open.
    const onOpen: Listener = (update) => {
      if ((update as { connection?: string }).connection === 'open') this.enqueue('unacked sends', () => resendUnacked(socket, this.deps.acks, this.deps.logger));
    };
    socket.ev.on('connection.update', onOpen);
    listeners.push(['connection.update', onOpen]);
    const onReceipt = (node: BinaryNode): void => this.receipts.observe(node);
    const onAck = (node: BinaryNode): void => this.enqueue('server ack', () => this.serverAck(socket, node));
    socket.ws.on('CB:receipt', onReceipt);
    socket.ws.on('CB:ack,class:message', onAck);
    return () => {
      for (const [event, listener] of listeners) socket.ev.off(event, listener);
      socket.ws.off('CB:receipt', onReceipt);
      socket.ws.off('CB:ack,class:message', onAck);
    };
  }

  /** Resolves once every event received so far has been handled (for orderly shutdown and tests). */
  idle(): Promise<void> {
    return this.queue;
  }

  /**
   * Reports the undecrypted messages still waiting for a resend (a resend after a reconnect still
   * cancels one: the router outlives sockets), then waits for every event to be handled.
   */
  async stop(): Promise<void> {
    this.pictures.clear();
    await this.queue;
    this.undecrypted.flush();
    await this.queue;
  }

  /** A send the server took: its `sent` status (once; see ServerAcks). */
  private async serverAck(socket: BaileysSocket, node: BinaryNode): Promise<void> {
    const id = this.deps.acks.accepted(node);
    if (!id) return;
    const status = await statusFromAck(id, node, this.deps.env(socket));
    if (!status) return;
    this.deps.health.sendAccepted();
    this.deps.emit(status);
  }

  private enqueue(event: string, work: () => Promise<void>): void {
    this.queue = this.queue.then(work).catch((err: unknown) => {
      this.deps.logger.error({ err, event }, 'failed to handle a WhatsApp event');
    });
  }

  private handlers(socket: BaileysSocket): Handlers {
    const { emit, health, labels, groupCache } = this.deps;
    const env = () => this.deps.env(socket);
    return {
      'messages.upsert': async ({ messages, type }) => {
        let flags: InstanceFlags | undefined;
        const toRead: WAMessageKey[] = [];
        const announced = messages.map((msg) => announcedGroupChange(msg, groupCache)).filter((change) => change !== undefined);
        if (announced.length > 0) emit({ type: 'group.update', groups: announced });
        for (const msg of messages) {
          const mapped = await mapInboundMessage(msg, env());
          if (mapped.kind === 'delete') emit({ type: 'message.delete', chatJid: mapped.chatJid, messageIds: [mapped.messageId] });
          if (mapped.kind !== 'message') continue;
          const story = isOthersStory(mapped.message);
          const incoming = arrivedNow(type, msg) && !mapped.message.fromMe;
          if (story || incoming) flags ??= await this.deps.flags();
          if (dropsStatusStory(mapped.message, flags!)) continue;
          if (isUndecrypted(mapped.message)) {
            this.undecrypted.hold(mapped.message);
            continue;
          }
          this.undecrypted.decrypted(mapped.message);
          if (this.liveFromHistory.has(mapped.message.id)) this.liveFromHistory.del(mapped.message.id);
          else emit({ type: 'message', message: mapped.message });
          if (incoming && !story && flags!.markMessages) toRead.push(msg.key);
        }
        // `mark_messages`: new incoming messages are read at once (blue ticks for the sender).
        if (toRead.length > 0) {
          await socket.readMessages(toRead).catch((err: unknown) => this.deps.logger.warn({ err }, 'could not mark messages read'));
        }
      },
      'messages.update': async (updates) => {
        for (const update of updates) {
          for (const status of await statusesFromUpdate(update, env(), (id) => this.receipts.takeDelivered(id))) {
            if (status.status === 'sent' && !this.deps.acks.firstSent(status.messageId)) continue;
            if (!this.reported.advances(status.messageId, status.status)) continue;
            if (status.status === 'failed') health.sendFailed(status.error?.code ?? 0);
            if (status.status === 'sent') health.sendAccepted();
            emit(status);
          }
        }
      },
      'message-receipt.update': async (receipts) => {
        for (const receipt of receipts) {
          for (const status of await statusesFromReceipt(receipt, env(), (id, member) => this.receipts.takePlayed(id, member))) {
            if (this.reported.advances(status.messageId, status.status, status.participant)) emit(status);
          }
        }
      },
      'messages.delete': async (deletion) => {
        if (!('keys' in deletion)) return this.deps.logger.debug({ jid: deletion.jid }, 'chat cleared on the phone; records are kept');
        const byChat = new Map<string, string[]>();
        for (const key of deletion.keys) {
          if (!key.remoteJid || !key.id) continue;
          byChat.set(key.remoteJid, [...(byChat.get(key.remoteJid) ?? []), key.id]);
        }
        for (const [chatJid, messageIds] of byChat) emit({ type: 'message.delete', chatJid, messageIds });
      },
      'presence.update': async (update) => {
        for (const event of await presenceEvents(update, env())) emit(event);
      },
      call: async (calls) => {
        for (const call of calls) {
          const event = callEvent(call, env().now(), env());
          if (event) emit(event);
        }
      },
      'groups.upsert': async (groups) => {
        for (const group of groups) groupCache.set(group.id, group);
        if (groups.length > 0) emit({ type: 'group.update', groups: groups.map(toGroup) });
      },
      'groups.update': async (updates) => {
        const changes = updates.filter((g): g is Partial<GroupMetadata> & { id: string } => typeof g.id === 'string')
          .map((update) => groupUpdateChange(update, groupCache))
          .filter((change) => change !== undefined);
        if (changes.length > 0) emit({ type: 'group.update', groups: changes });
      },
      'group-participants.update': async (update) => {
        groupCache.del(update.id);
        groupCache.learn(update.participants);
        const event = await participantsEvent(update, env());
        if (event) emit(event);
      },
      'contacts.upsert': async (contacts) => this.emitContacts(socket, contacts),
      'contacts.update': async (contacts) => this.emitContacts(socket, contacts),
      'chats.upsert': async (chats) => {
        this.forgetGroupTimers(chats);
        await this.emitChats(socket, chats.map(chatChange));
      },
      'chats.update': async (updates) => {
        this.forgetGroupTimers(updates);
        await this.emitChats(socket, updates.map(chatUpdateChange));
      },
      'chats.delete': async (jids) => {
        if (jids.length > 0) emit({ type: 'chats.delete', jids });
      },
      'messaging-history.set': async (set) => {
        const { events, live } = await historyBatch(set, env());
        for (const event of events) emit(event);
        for (const message of live) {
          // A decrypted copy: a CIPHERTEXT stub of it held for a resend is no message-unsupported.
          this.undecrypted.decrypted(message);
          this.liveFromHistory.set(message.id, true);
          emit({ type: 'message', message });
        }
      },
      // The phone's label changes: the store keeps them, and the chats they touch show their new `labels`.
      'labels.edit': async (label) => {
        if (!label.deleted) return labels.put({ id: label.id, name: label.name, color: label.color });
        const carrying = await labels.chats(label.id);
        await labels.remove(label.id);
        await this.emitLabelsOf(carrying);
      },
      'labels.association': async ({ association, type }) => {
        if (association.type !== 'label_jid') return;
        await labels.associate(association.labelId, association.chatId, type === 'add');
        await this.emitLabelsOf([association.chatId]);
      },
      'lid-mapping.update': async ({ pn, lid }) => {
        emit({ type: 'contacts.upsert', contacts: [{ id: normalizeJid(pn), lid: normalizeJid(lid) }] });
      },
      'message-capping.update': async (info) => {
        health.messageCap(info);
      },
    };
  }

  /**
   * A group's disappearing-messages timer changed (WhatsApp's w:gp2 `<ephemeral>` notification, which Baileys
   * turns into a chat update, not a group update): its cached metadata is dropped, so the next send reads the
   * timer afresh (capabilities/disappearing.ts).
   */
  private forgetGroupTimers(chats: Array<{ id?: string | null; ephemeralExpiration?: number | null }>): void {
    for (const chat of chats) {
      if (chat.id && isJidGroup(chat.id) && chat.ephemeralExpiration !== undefined) this.deps.groupCache.del(chat.id);
    }
  }

  private async emitLabelsOf(jids: string[]): Promise<void> {
    if (jids.length > 0) this.deps.emit({ type: 'chats.upsert', chats: await this.deps.labels.chatLabels(jids) });
  }

  /**
   * Contacts go out under the person's number, the LID beside, like chats ({@link EventRouter.emitChats}). A
   * picture notification's sentinels are not URLs: a removed picture goes out as `imgUrl: null`, a changed one's
   * URL is fetched ({@link ContactPictures}).
   */
  private async emitContacts(socket: BaileysSocket, contacts: Parameters<typeof contactChange>[0][]): Promise<void> {
    const changes: ContactChange[] = [];
    for (const contact of contacts) {
      const change = contactChange(contact);
      if (!change) continue;
      const pn = await numberOf(socket, change.id);
      const named = pn ? { ...change, id: pn, lid: change.id } : change;
      if (contact.imgUrl === PICTURE_CHANGED) this.pictures.changed(socket, named.id);
      else if (named.imgUrl !== undefined) this.pictures.superseded(named.id);
      // A change that says nothing but the id (a changed picture, whose URL comes later) is no event.
      if (Object.keys(named).length > 1) changes.push(named);
    }
    if (changes.length > 0) this.deps.emit({ type: 'contacts.upsert', contacts: changes } satisfies ChannelEventPayload);
  }

  /**
   * Chats go out under the person's number: Baileys files the chat of a message from a LID (a chat WhatsApp
   * moved to LIDs) under the LID, while the message itself is the number's (`sender_pn`), which would list
   * a second chat for the same person. A LID whose number WhatsApp never told stays as it is.
   */
  private async emitChats(socket: BaileysSocket, mapped: ReturnType<typeof chatChange>[]): Promise<void> {
    const changes = await Promise.all(mapped.filter((c) => c !== undefined).map(async (change) => {
      const pn = await numberOf(socket, change.id);
      return pn ? { ...change, id: pn } : change;
    }));
    if (changes.length > 0) this.deps.emit({ type: 'chats.upsert', chats: changes });
  }
}

/** The number's JID of a LID WhatsApp told the socket about; undefined for any other JID or an unknown LID. */
async function numberOf(socket: BaileysSocket, jid: string): Promise<string | undefined> {
  if (!isLidJid(jid)) return undefined;
  const pn = await socket.signalRepository.lidMapping.getPNForLID(jid).catch(() => null);
  return pn ? normalizeJid(pn) : undefined;
}

/**
 * Whether an upsert is a message that reached the account now: a live one (`notify`), or one WhatsApp kept
 * while the socket was away and hands over from its offline queue (`append`: Baileys Socket/messages-recv.js
 * files stanzas marked `offline` so). Other `append`s are the socket's own sends and newsletter posts.
 */
function arrivedNow(type: MessageUpsertType, msg: WAMessage): boolean {
  return type === 'notify' || (type === 'append' && !isJidNewsletter(msg.key.remoteJid ?? ''));
}

function isUndecrypted(message: InboundMessage): boolean {
  return message.content.type === 'unsupported' && message.content.typeName === 'ciphertext';
}
