import { randomBytes } from 'node:crypto';
import { extractE2ESessionFromRetryReceipt, getBinaryNodeChild, getBinaryNodeChildren } from '@whiskeysockets/baileys';
import type { BinaryNode, proto } from '@whiskeysockets/baileys';
import type { ClientConnection } from '../transport/connection.js';
import { deviceOf, unixNow } from '../network/network.js';
import type { Feature, Network } from '../network/network.js';
import type { Account, CompanionDevice } from '../network/model.js';
import { blocks } from '../network/model.js';
import { SimError } from '../network/errors.js';
import { takeBundle } from './prekeys.js';
import type { Media, MediaInput } from './media.js';
import { contentOf, type ReceivedMessage } from '../network/phone.js';
import type { MessageStanzas } from './message-stanzas.js';
import { stanzaType } from './message-kinds.js';
import { PhoneReceipts, type ReceiptKind } from './receipts.js';
import { readReceiptsFlow } from './privacy-rules.js';
import { PhoneRetries } from './phone-retries.js';
import { ClientRelay } from './client-relay.js';
import { VIEW_ONCE_FOR_COMPANIONS } from '../verdicts.js';

export type { ReceiptKind } from './receipts.js';

/** A message a phone sent, and the receipts it got back. */
export interface SentMessage {
  id: string;
  to: string;
  text: string;
  timestamp: number;
  /** Devices the message was encrypted for. */
  devices: string[];
  /** Receipts: who, which, when it arrived (`at`, ms) and the time it carries (`t`, Unix seconds). */
  receipts: Array<{ from: string; type: ReceiptKind; at: number; t?: number }>;
  /** Retry receipts devices sent for it (they could not decrypt their copy), each answered by a resend. */
  retries?: Array<{ from: string; count: number; at: number }>;
}

/** A copy a phone could not decrypt; the phone asks a companion that sent it for a retry (phone-retries.ts). */
export interface UndecryptableMessage {
  id: string;
  from: string;
  type: 'pkmsg' | 'msg' | 'skmsg';
  error: string;
  at: number;
}

/**
 * What the companions of a phone's message get instead of a good copy: `unavailable` — no ciphertext, the
 * verdict VIEW_ONCE_FOR_COMPANIONS, as WhatsApp gives view-once media to phones only; `corrupt` — a `msg`
 * that no session decrypts, resent just as broken on each retry receipt (a sender whose encryption is broken).
 */
export type CompanionCopies = 'unavailable' | 'corrupt';

/** A phone's message a companion reads, or does not. */
export interface PhoneMessageOptions {
  /** What the recipient's companions get (its own companions too, for `unavailable`). */
  companions?: CompanionCopies;
  /** Runs for each of the recipient's companions right before its copy is sent (the phone's history chunk holding the message). */
  ahead?: (device: CompanionDevice, sent: SentMessage, message: proto.IMessage) => Promise<void>;
}

/**
 * Receipt types a client sends that reach the message's sender, and as what. `inactive` is the delivery
 * receipt of a client that is not marked online (Baileys sends it when `markOnlineOnConnect` is off);
 * whatsmeow types.ReceiptTypeInactive documents it as a delivery. A retry receipt for a phone's message makes
 * the phone resend it (retryFrom, for a group message group-retries.ts); one for a client's message goes to
 * the sending companion (client-relay.ts). Peer receipts are not relayed.
 */
const RELAYED_RECEIPTS: Record<string, ReceiptKind> = { '': 'delivery', inactive: 'delivery', read: 'read', played: 'played' };

/** Retries a phone answers per message and device (Baileys' maxMsgRetryCount default). */
export const MAX_RETRIES = 5;
/** Sent messages a phone keeps to resend on a retry receipt; the oldest go first. */
export const MAX_RESENDABLE = 1000;

/** Most characters a text sent through the control API may have (WhatsApp's limit is 65 536). */
const MAX_TEXT = 65_536;

/**
 * 1:1 messages: relay of clients' `<message>` stanzas (client-relay.ts: a simulated phone decrypts its copy;
 * companions get theirs now or at their next login), server acks, and `<receipt>` relay. Phones send with
 * real Signal sessions started from the key bundles the server hands out.
 */
export class Messaging {
  private readonly sent = new Map<Account, SentMessage[]>();
  private readonly failures = new Map<Account, UndecryptableMessage[]>();
  /** What phones sent 1:1, by message id, to resend to a device that asks for a retry. */
  private readonly resendable = new Map<string, { from: Account; toJid: string; message: proto.IMessage; record: SentMessage; companions?: CompanionCopies }>();
  /** The relay of clients' 1:1 messages (and of their retry receipts between companions). */
  readonly relay: ClientRelay;
  /** How each phone sends its receipts (time, read at once). */
  readonly receipts = new PhoneReceipts();
  /** The retry receipts phones send for what they could not decrypt. */
  readonly retries: PhoneRetries;
  /** Answers a companion's retry receipt for a group message (set by the group feature; group-retries.ts). */
  private groupRetry: (device: CompanionDevice, node: BinaryNode) => Promise<void> = async () => {};
  /** How a group names the device a receipt comes from (set by the group feature; group-addressing.ts). */
  private groupNames: (group: string, deviceJid: string) => Record<string, string> = (_group, participant) => ({ participant });
  /** Called with each message a phone keeps (1:1 and group), after its media is opened. */
  private readonly observers: Array<(account: Account, received: ReceivedMessage) => void> = [];

  constructor(private readonly network: Network, private readonly media: Media, stanzas: MessageStanzas) {
    this.retries = new PhoneRetries(network);
    this.relay = new ClientRelay(network, stanzas, (...copy) => this.toPhone(...copy));
  }

  feature(): Feature {
    return {
      stanzas: {
        message: (connection, node) => this.relay.message(connection, node),
        receipt: (connection, node) => this.receiptFromClient(connection, node),
        ack: () => {},
      },
    };
  }

  undecryptableBy(account: Account): UndecryptableMessage[] {
    return [...(this.failures.get(account) ?? [])];
  }

  sentBy(account: Account): SentMessage[] {
    return [...(this.sent.get(account) ?? [])];
  }

  async phoneSendsText(fromNumber: string, toNumber: string, text: string, options: PhoneMessageOptions = {}): Promise<SentMessage> {
    if (typeof text !== 'string' || text.length === 0 || text.length > MAX_TEXT) {
      throw new SimError(400, 'invalid_text', `text must be a non-empty string of at most ${MAX_TEXT} characters`, { field: 'text' });
    }
    return this.phoneSends(fromNumber, toNumber, { conversation: text }, text, options);
  }

  /** Names receipts' authors in groups as each group addresses its members (a LID group by LID, `participant_pn` beside). */
  nameInGroups(names: (group: string, deviceJid: string) => Record<string, string>): void {
    this.groupNames = names;
  }

  /** Hands companions' retry receipts for group messages to `answer`. */
  onGroupRetry(answer: (device: CompanionDevice, node: BinaryNode) => Promise<void>): void {
    this.groupRetry = answer;
  }

  /** Runs `observe` on every message a phone keeps from now on. */
  onPhoneReceived(observe: (account: Account, received: ReceivedMessage) => void): void {
    this.observers.push(observe);
  }

  /**
   * The phone uploads a file (encrypted) and sends it; `text` of the record is the caption or file name. A
   * view-once image goes as phones send one (`viewOnceMessageV2`, `viewOnce: true`): only phones get it.
   */
  async phoneSendsMedia(fromNumber: string, toNumber: string, input: MediaInput, viewOnce = false): Promise<SentMessage> {
    this.network.account(fromNumber);
    this.network.account(toNumber);
    if (viewOnce && input.kind !== 'image') throw new SimError(400, 'invalid_media', 'only an image is sent view-once here', { field: 'kind' });
    const uploaded = await this.media.upload(input);
    const message = viewOnce ? { viewOnceMessageV2: { message: { imageMessage: { ...uploaded.imageMessage, viewOnce: true } } } } : uploaded;
    const sent = await this.phoneSends(fromNumber, toNumber, message, input.caption ?? input.fileName ?? '', viewOnce ? { companions: 'unavailable' } : {});
    this.media.keep(this.network.account(fromNumber), sent.id, uploaded, input.data);
    return sent;
  }

  /** Opens what a phone kept: its media is downloaded and decrypted. */
  async phoneGot(account: Account, received: ReceivedMessage): Promise<void> {
    await this.media.open(account, received);
    for (const observe of this.observers) observe(account, received);
  }

  /**
   * The phone of `fromNumber` sends any message to the number `toNumber`: encrypted for the recipient's phone
   * and companions and, as `deviceSentMessage`, for the sender's own companions. `text` is the record's text.
   */
  async phoneSends(fromNumber: string, toNumber: string, message: proto.IMessage, text: string, options: PhoneMessageOptions = {}): Promise<SentMessage> {
    const from = this.network.account(fromNumber);
    const to = this.network.account(toNumber);
    const id = `3A${randomBytes(9).toString('hex').toUpperCase()}`;
    const toJid = `${to.number}@s.whatsapp.net`;
    // An account that blocked the sender gets nothing (the sender's own devices still get their copies).
    const reaches = to !== from && !blocks(to, from);
    const targets = [
      ...(reaches ? [...to.companions.values()].map((d) => ({ jid: d.jid, device: d, own: false })) : []),
      ...[...from.companions.values()].map((d) => ({ jid: d.jid, device: d, own: true })),
    ];
    const record = this.recordSent(from, { id, to: toJid, text, timestamp: Number(unixNow()), devices: [], receipts: [] });
    const { companions } = options;
    this.resendable.set(id, { from, toJid, message, record, companions });
    while (this.resendable.size > MAX_RESENDABLE) this.resendable.delete(this.resendable.keys().next().value!);
    for (const target of targets) {
      const fate = companions === 'unavailable' || (companions === 'corrupt' && !target.own) ? companions : undefined;
      if (!fate) await this.ensureSession(from, target.jid);
      if (!target.own) await options.ahead?.(target.device, record, message);
      await this.copyTo(from, target.device, toJid, message, record, undefined, fate);
      record.devices.push(target.jid);
    }
    if (reaches) {
      await this.ensureSession(from, toJid);
      const { type, ciphertext } = await from.phone.encrypt(toJid, message);
      await this.toPhone(to, id, `${from.number}@s.whatsapp.net`, type, ciphertext, true);
      record.devices.push(toJid);
    }
    return record;
  }

  /** Encrypts one copy of a phone's message for one companion (its own as `deviceSentMessage`) and sends it. */
  private async copyTo(
    from: Account, device: CompanionDevice, toJid: string, message: proto.IMessage, record: SentMessage, count?: number, fate?: CompanionCopies,
  ): Promise<void> {
    const own = this.network.accountOf(device.jid) === from;
    const body = own ? { deviceSentMessage: { destinationJid: toJid, message } } : message;
    const attrs: Record<string, string> = { from: `${from.number}@s.whatsapp.net`, id: record.id, type: stanzaType(message), t: String(record.timestamp), notify: from.pushName };
    if (own) attrs.recipient = toJid;
    else if (from.lidAddressed) Object.assign(attrs, { from: `${from.lid}@lid`, sender_pn: `${from.number}@s.whatsapp.net` });
    if (fate === 'unavailable') {
      this.network.deliver(device, { tag: 'message', attrs, content: [{ ...VIEW_ONCE_FOR_COMPANIONS.value }] });
      return;
    }
    const { type, ciphertext } = fate === 'corrupt' ? { type: 'msg', ciphertext: randomBytes(64) } : await from.phone.encrypt(device.jid, body);
    const enc: BinaryNode = { tag: 'enc', attrs: { v: '2', type, ...(count ? { count: String(count) } : {}) }, content: ciphertext };
    this.network.deliver(device, { tag: 'message', attrs, content: [enc] });
  }

  /**
   * A device could not decrypt a phone's message and asks for it again (`<receipt type="retry">`): the
   * phone re-encrypts it for that device only, over a new session from the keys the receipt carries
   * (Baileys sends them from its second retry on) or else the session it has, as whatsmeow's
   * handleRetryReceipt does; at most MAX_RETRIES times per device.
   */
  private async retryFrom(device: CompanionDevice, node: BinaryNode): Promise<void> {
    const original = this.resendable.get(node.attrs.id ?? '');
    if (!original || this.network.accountOf(node.attrs.to ?? '') !== original.from) return;
    // View-once media never reach a companion, not even on a retry.
    if (original.companions === 'unavailable') return;
    const count = Number(getBinaryNodeChild(node, 'retry')?.attrs.count ?? 1) || 1;
    const retries = original.record.retries ?? (original.record.retries = []);
    if (retries.filter((r) => r.from === device.jid).length >= MAX_RETRIES) return;
    retries.push({ from: device.jid, count, at: Date.now() });
    // A broken sender's resend is as broken as its first copy (no session to rebuild).
    if (original.companions === 'corrupt' && this.network.accountOf(device.jid) !== original.from) return this.copyTo(original.from, device, original.toJid, original.message, original.record, count, 'corrupt');
    await this.retrySession(original.from, device.jid, node);
    await this.copyTo(original.from, device, original.toJid, original.message, original.record, count);
  }

  /**
   * The phone's session with a device that sent a retry receipt: a new one from the prekey bundle the receipt
   * carries (Baileys sends one from its second retry on), else the session it has (whatsmeow handleRetryReceipt).
   */
  async retrySession(from: Account, deviceJid: string, receipt: BinaryNode): Promise<void> {
    const bundle = extractE2ESessionFromRetryReceipt(receipt);
    if (!bundle) return this.ensureSession(from, deviceJid);
    await from.phone.deleteSession(deviceJid);
    await from.phone.startSession(deviceJid, {
      registrationId: bundle.registrationId, identityKey: Buffer.from(bundle.identityKey),
      signedPreKey: { keyId: bundle.signedPreKey.keyId, publicKey: Buffer.from(bundle.signedPreKey.publicKey), signature: Buffer.from(bundle.signedPreKey.signature) },
      preKey: bundle.preKey ? { keyId: bundle.preKey.keyId, publicKey: Buffer.from(bundle.preKey.publicKey) } : undefined,
    });
  }

  /**
   * The phone of `number` reads (or plays: a voice note, an audio) a received message: the receipt goes to
   * the sender's devices, timed `t` (Unix seconds) when given, else by the phone's receipt settings.
   */
  phoneReads(number: string, messageId: string, kind: 'read' | 'played' = 'read', t?: number): void {
    const account = this.network.account(number);
    const message = account.phone.received.find((m) => m.id === messageId);
    if (!message) throw new SimError(404, 'message_not_found', `the phone of ${number} has no received message ${messageId}`, { messageId });
    if (kind === 'played' && !contentOf(message.message).audioMessage) {
      throw new SimError(409, 'not_playable', `message ${messageId} is not an audio message: only audio is played`, { messageId });
    }
    const sender = this.network.accountOf(message.from);
    if (sender) this.receiptTo(sender, receiptFrom(account, message.group), [messageId], kind, message.group, this.receipts.timeOf(account, t));
  }

  /**
   * A phone kept a message: its delivery receipt goes to the sender, and its read receipt right after
   * when the phone reads at once (both in one go, as a phone with the chat open sends them).
   */
  acknowledge(phoneAccount: Account, sender: Account, id: string, group?: string): void {
    const from = receiptFrom(phoneAccount, group);
    const t = this.receipts.timeOf(phoneAccount);
    this.receiptTo(sender, from, [id], 'delivery', group, t);
    if (this.receipts.of(phoneAccount).readAtOnce) this.receiptTo(sender, from, [id], 'read', group, t);
  }

  /** Lists a message a phone sends; before any copy leaves, since a receipt can come back before the last copy is sent. */
  recordSent(from: Account, record: SentMessage): SentMessage {
    this.sent.set(from, [...(this.sent.get(from) ?? []), record]);
    return record;
  }

  /** Keeps a copy a phone could not decrypt. */
  recordFailure(phoneAccount: Account, failed: UndecryptableMessage): void {
    this.failures.set(phoneAccount, [...(this.failures.get(phoneAccount) ?? []), failed]);
  }

  /** Starts the phone's Signal session with a device from a key bundle, unless it has one. */
  async ensureSession(from: Account, jid: string): Promise<void> {
    if (await from.phone.hasSession(jid)) return;
    const bundle = takeBundle(this.network, jid);
    if (!bundle) throw new SimError(404, 'device_not_found', `no keys for ${jid}`);
    await from.phone.startSession(jid, bundle);
  }

  /** A phone gets its copy: it decrypts, and for a message it keeps, its delivery receipt goes back. */
  private async toPhone(phoneAccount: Account, id: string, fromDevice: string, type: 'pkmsg' | 'msg', ciphertext: Buffer, keep: boolean): Promise<void> {
    try {
      const received = await phoneAccount.phone.receive(id, fromDevice, type, ciphertext, Number(unixNow()), keep);
      if (keep) await this.phoneGot(phoneAccount, received);
      const sender = this.network.accountOf(fromDevice);
      if (keep && sender) this.acknowledge(phoneAccount, sender, id);
    } catch (error) {
      this.recordFailure(phoneAccount, { id, from: fromDevice, type, error: (error as Error).message, at: Date.now() });
      if (keep) this.retries.ask(phoneAccount, fromDevice, id);
    }
  }

  /**
   * A receipt from `from` (a user or device JID) for messages of `sender`: to its companions, and its phone's
   * record. In a group the receipt comes from the group, with the reader as `participant`. A 1:1 `read` goes
   * nowhere when either side turned read receipts off (privacy-rules.ts readReceiptsFlow).
   */
  receiptTo(sender: Account, from: string, ids: string[], type: ReceiptKind, group?: string, t = unixNow()): void {
    const reader = this.network.accountOf(from);
    if (type === 'read' && !group && reader && !readReceiptsFlow(reader, sender)) return;
    const [first, ...rest] = ids;
    const attrs: Record<string, string> = group ? { from: group, ...this.groupNames(group, from), id: first!, t } : { from, id: first!, t };
    if (type !== 'delivery') attrs.type = type;
    const content = rest.length ? [{ tag: 'list', attrs: {}, content: rest.map((x) => ({ tag: 'item', attrs: { id: x } })) }] : undefined;
    for (const device of sender.companions.values()) this.network.deliver(device, { tag: 'receipt', attrs: { ...attrs }, content });
    for (const message of this.sent.get(sender) ?? []) {
      if (ids.includes(message.id)) message.receipts.push({ from, type, at: Date.now(), t: Number(t) });
    }
  }

  private async receiptFromClient(connection: ClientConnection, node: BinaryNode): Promise<void> {
    const session = this.network.session(connection);
    const { id, to, type } = node.attrs;
    if (!session || !id || !to) return;
    connection.send({ tag: 'ack', attrs: { class: 'receipt', id, from: to, ...(type ? { type } : {}) } });
    if (type === 'retry') {
      // A client's group message: to its author's device (client-relay.ts); a phone's: the phone resends (group-retries.ts).
      if (to.endsWith('@g.us')) return this.relay.retry(session.device, node, this.groupNames(to, session.device.jid)) ? undefined : this.groupRetry(session.device, node);
      // A retry receipt to a companion is for a client's message (client-relay.ts); one to a number, for its phone's.
      if (deviceOf(to) !== 0) return void this.relay.retry(session.device, node);
      return this.retryFrom(session.device, node);
    }
    const kind = RELAYED_RECEIPTS[type ?? ''];
    const group = to.endsWith('@g.us') ? to : undefined;
    // In a group the receipt names the message's author as `participant`.
    const sender = this.network.accountOf(group ? node.attrs.participant ?? '' : to);
    if (!kind || !sender || sender === session.account) return;
    const ids = [id, ...getBinaryNodeChildren(getBinaryNodeChild(node, 'list'), 'item').map((item) => item.attrs.id ?? '')].filter(Boolean);
    this.receiptTo(sender, session.device.jid, ids, kind, group);
  }
}

/** Who a phone's receipt comes from: its LID in the 1:1 chats of a `lidAddressed` account, else its number. */
function receiptFrom(account: Account, group: string | undefined): string {
  return account.lidAddressed && !group ? `${account.lid}@lid` : `${account.number}@s.whatsapp.net`;
}
