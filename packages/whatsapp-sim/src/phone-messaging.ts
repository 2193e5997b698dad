import { PhoneSignals } from './phone-signals.js';
import type { ReceivedMessage } from './network/phone.js';
import { Messaging, type SentMessage, type UndecryptableMessage } from './features/messaging.js';
import { Groups, type GroupView } from './features/groups.js';
import { GroupMessages, type GroupSendOptions } from './features/group-messages.js';
import { MessageStanzas } from './features/message-stanzas.js';
import { Media, type MediaInput, type ReceivedMedia } from './features/media.js';
import { PhoneMessages, type MessageTarget } from './features/phone-messages.js';
import { MediaRetries, type MediaRetry } from './features/media-retry.js';
import type { PhoneMessageInput } from './features/message-kinds.js';
import { Disappearing, type ChatTimer } from './features/disappearing.js';
import { phoneSendsAlbum, type SentAlbum } from './features/albums.js';
import type { ReceiptSettings, ReceiptSettingsChange } from './features/receipts.js';
import { SimError } from './network/errors.js';
import { sendRecentChunk, withReceived, type HistoryMessage } from './features/history.js';
import { OfflineQueue } from './features/offline-queue.js';
import type { MediaRequest } from './media/serving.js';
import type { Order, OrderItem } from './features/orders.js';

/** Most client messages `garbleIncoming` garbles at once. */
const MAX_GARBLED = 100;

/**
 * What the simulator's phones send and receive: messages of every kind 1:1 and in groups, media, receipts,
 * disappearing timers, view-once media, albums and messages that never decrypt — and what each phone got.
 * The `Simulator`'s base below the server's own features (linking, groups' administration, outages).
 */
export abstract class PhoneMessaging extends PhoneSignals {
  protected readonly admission = new MessageStanzas();
  /** The hand-over of what devices missed (`<ib><offline>`), in the batches they ask for. */
  protected readonly offline = new OfflineQueue();
  protected readonly media: Media;
  protected readonly mediaRetries: MediaRetries;
  protected readonly messaging: Messaging;
  protected readonly groups: Groups;
  protected readonly groupMessages: GroupMessages;
  private readonly phoneMessages: PhoneMessages;
  private readonly disappearing: Disappearing;

  constructor(host: string) {
    super(host);
    this.media = new Media(this.network, this.mediaHost);
    this.mediaRetries = new MediaRetries(this.network, this.media);
    this.messaging = new Messaging(this.network, this.media, this.admission);
    this.groups = new Groups(this.network);
    this.groupMessages = new GroupMessages(this.network, this.groups, this.messaging, this.admission);
    this.messaging.nameInGroups((jid, device) => {
      const group = this.groups.all().find((g) => g.jid === jid);
      return group ? this.groups.addressing(group).device(device) : { participant: device };
    });
    this.phoneMessages = new PhoneMessages(this.network, this.media, this.messaging, this.groupMessages);
    this.disappearing = new Disappearing(this.network, this.messaging, this.groups);
  }

  /** The phone of `from` sends a text to the number `to`; resolves with the message id once relayed. */
  sendText(from: string, to: string, text: string): Promise<SentMessage> {
    return this.messaging.phoneSendsText(from, to, text);
  }

  /** The phone of `from` uploads a file (WhatsApp's media encryption) and sends it to the number `to`. */
  sendMedia(from: string, to: string, media: MediaInput): Promise<SentMessage> {
    return this.messaging.phoneSendsMedia(from, to, media);
  }

  /**
   * The phone of `from` sends a message of any kind (video, sticker, location, contacts, reaction, a reply to
   * buttons or a list, a quote, an ad referral, an edit or revoke of its own message…) to the number
   * `target.to` or into the group `target.group`.
   */
  sendMessage(from: string, target: MessageTarget, message: PhoneMessageInput): Promise<SentMessage> {
    return this.phoneMessages.send(from, target, message);
  }

  /** The decrypted file of a message the phone of `number` received. */
  receivedMedia(number: string, messageId: string): { media: ReceivedMedia; data: Buffer } {
    return this.media.file(this.network.account(number), messageId);
  }

  /** A file on the media host by its direct path or URL, as uploaded (message media encrypted, catalog images plain). */
  mediaFile(directPathOrUrl: string): Buffer | undefined {
    return this.mediaHost.get(directPathOrUrl);
  }

  /** The downloads the media host answered, oldest first: how much of each file it wrote and whether the client closed first. */
  mediaRequests(): MediaRequest[] {
    return this.mediaHost.requests();
  }

  /** Removes a file from the media host by its direct path or URL (later downloads get 404); 404 `media_not_found` if there is none. */
  removeMedia(directPathOrUrl: string): void {
    if (!this.mediaHost.remove(directPathOrUrl)) throw new SimError(404, 'media_not_found', `no file at ${directPathOrUrl} on the media host`, { path: directPathOrUrl });
  }

  /**
   * The phone of `number` deletes the file of a message it has (received, sent or in its history; the message stays): a companion's media
   * retry request for it is answered `answer` (`not_found`, default, or `general_error`) instead of a new upload.
   * 404 `media_not_found` when the phone has no file of that message; 400 naming `field` (default `answer`) for another answer.
   */
  loseMedia(number: string, messageId: string, answer?: unknown, field?: string): void {
    this.mediaRetries.lose(this.network.account(number), messageId, answer, field);
  }

  /** The media retry requests of its companions the phone of `number` answered, oldest first (media-retry.ts). */
  answeredMediaRetries(number: string): MediaRetry[] {
    return this.mediaRetries.of(this.network.account(number));
  }

  /** What the phone of `number` received, decrypted, oldest first. */
  received(number: string): ReceivedMessage[] {
    return [...this.network.account(number).phone.received];
  }

  /** Copies the phone of `number` got and could not decrypt. */
  undecryptable(number: string): UndecryptableMessage[] {
    return this.messaging.undecryptableBy(this.network.account(number));
  }

  /**
   * The phone of `number` loses its Signal sessions with every device of `peer` (as after restoring a backup):
   * the next message from a companion of `peer` on an old session does not decrypt, and the phone asks for a retry.
   */
  async forgetSessions(number: string, peer: string): Promise<void> {
    const phone = this.network.account(number).phone;
    const other = this.network.account(peer);
    for (const jid of [`${other.number}@s.whatsapp.net`, ...[...other.companions.values()].map((d) => d.jid)]) await phone.deleteSession(jid);
  }

  /** What the phone of `number` sent, with the receipts each message got. */
  sent(number: string): SentMessage[] {
    return this.messaging.sentBy(this.network.account(number));
  }

  /** The phone of `number` reads a message it received: the sender's devices get a read receipt (timed `t`, Unix seconds, when given). */
  markRead(number: string, messageId: string, t?: number): void {
    this.messaging.phoneReads(number, messageId, 'read', t);
  }

  /** The phone of `number` plays an audio message it received (a `played` receipt; 409 `not_playable` for others). */
  markPlayed(number: string, messageId: string, t?: number): void {
    this.messaging.phoneReads(number, messageId, 'played', t);
  }

  /** How the phone of `number` sends receipts: the `t` they carry (`null`: the current time) and whether it reads at once. */
  setReceipts(number: string, change: ReceiptSettingsChange): ReceiptSettings {
    return this.messaging.receipts.change(this.network.account(number), change);
  }

  /**
   * The phone of `from` orders from the catalog of the business `to`: the server records the order and the
   * phone sends the business an `orderMessage` (order id, token, item count, seller JID, total) as the app does.
   */
  async sendOrder(from: string, to: string, items: OrderItem[]): Promise<{ order: Order; sent: SentMessage }> {
    const { order, message } = this.orderBook.place(this.network.account(from), this.network.account(to), items);
    const sent = await this.messaging.phoneSends(order.buyer, order.seller, message, order.products[0]!.name);
    return { order, sent };
  }

  /** The phone of `from` sends a view-once image: the phone of `to` gets it, every companion `<unavailable type="view_once">`. */
  sendViewOnce(from: string, to: string, media: MediaInput): Promise<SentMessage> {
    return this.messaging.phoneSendsMedia(from, to, media, true);
  }

  /** The phone of `from` sends 2 to 10 images as one album (a parent `albumMessage`, then each image tied to it). */
  sendAlbum(from: string, to: string, images: MediaInput[]): Promise<SentAlbum> {
    return phoneSendsAlbum(this.messaging, this.media, from, to, images);
  }

  /** The phone of `from` sends a text whose copies for the companions of `to` never decrypt, nor do its resends. */
  sendUndecryptable(from: string, to: string, text: string): Promise<SentMessage> {
    return this.messaging.phoneSendsText(from, to, text, { companions: 'corrupt' });
  }

  /**
   * The phone of `from` sends a text to `to`, and the phone of `to` first sends each of its companions a later
   * RECENT history chunk holding that text (as a phone that got it builds the chunk with what it has), so the
   * live copy comes right behind a history set with its key. A companion that is away gets both at its next
   * login, and that hand-over ends only once it acknowledged the text (`OfflineQueue.endAfterAcks`): both are
   * handled inside the one window of Baileys' event buffer that lasts from login to `<ib><offline>`
   * (Socket/socket.js), and Baileys files the live upsert under the history set (Utils/event-buffer.js).
   */
  sendTextAfterHistory(from: string, to: string, text: string): Promise<SentMessage> {
    const account = this.network.account(to);
    return this.messaging.phoneSendsText(from, to, text, {
      ahead: async (device, sent, message) => {
        if (!device.connection?.isOpen || device.connection.silenced) this.offline.endAfterAcks(device, [sent.id]);
        const held: HistoryMessage = { fromNumber: from, id: sent.id, message: { ...message }, timestamp: sent.timestamp };
        await sendRecentChunk(this.network, account, device, withReceived([], [held]));
      },
    });
  }

  /**
   * The next `messages` messages other accounts' clients (companions, a Parley instance) send to `number`, 1:1
   * or into a group it is in (there the `skmsg`), reach its companions garbled: each companion fails to decrypt its copy, answers a retry receipt the
   * server relays to the sending device, and decrypts the resend (which is not garbled). Its phone gets good
   * copies. Answers `{ number, messages }`; 400 `invalid_request` for a count outside 1–100.
   */
  garbleIncoming(number: string, messages = 1): { number: string; messages: number } {
    if (!Number.isInteger(messages) || messages < 1 || messages > MAX_GARBLED) {
      throw new SimError(400, 'invalid_request', `messages must be an integer from 1 to ${MAX_GARBLED}`, { field: 'messages' });
    }
    this.messaging.relay.garbleNext(this.network.account(number), messages);
    return { number, messages };
  }

  /** The phone of `from` sets the disappearing-messages timer (seconds, 0 off) of its chat with `to`. */
  setDisappearing(from: string, to: string, expiration: number): Promise<SentMessage> {
    return this.disappearing.phoneSets(from, to, expiration);
  }

  /** The disappearing-messages timer of the chat between two accounts. */
  chatTimer(a: string, b: string): ChatTimer {
    return this.disappearing.between(a, b);
  }

  /** The phone of `number` sets a group's disappearing-messages timer (seconds, 0 off). */
  setGroupDisappearing(number: string, jid: string, expiration: number): GroupView {
    return this.disappearing.phoneSetsGroup(number, jid, expiration);
  }

  /**
   * The phone of `from` sends a text into a group it is a member of. With `{ companions: 'garbled' }` the
   * companions' `skmsg` does not decrypt (garbled once): each asks for a retry and gets a good 1:1 resend.
   */
  sendGroupText(from: string, group: string, text: string, options?: GroupSendOptions): Promise<SentMessage> {
    return this.groupMessages.phoneSendsText(from, group, text, options);
  }

  /**
   * The phone of `number` loses the sender keys it got in group `group` (its JID or id), as after restoring a
   * backup: the next message there under an old key does not decrypt, and the phone asks its sender for a retry.
   */
  async forgetSenderKeys(number: string, group: string): Promise<void> {
    await this.network.account(number).phone.forgetSenderKeys(this.groupMessages.sendable(number, group).jid);
  }
}
