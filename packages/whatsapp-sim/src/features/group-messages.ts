import { randomBytes } from 'node:crypto';
import { getBinaryNodeChild, getBinaryNodeChildren } from '@whiskeysockets/baileys';
import type { BinaryNode, proto } from '@whiskeysockets/baileys';
import type { ClientConnection } from '../transport/connection.js';
import { deviceOf, unixNow } from '../network/network.js';
import type { Feature, Network } from '../network/network.js';
import type { Account, CompanionDevice } from '../network/model.js';
import { SimError } from '../network/errors.js';
import type { Groups, Group } from './groups.js';
import type { Messaging, SentMessage } from './messaging.js';
import type { MessageStanzas } from './message-stanzas.js';
import { stanzaType } from './message-kinds.js';
import { GroupRetries, type GroupResendable } from './group-retries.js';

export type Copy = { type: 'pkmsg' | 'msg'; ciphertext: Buffer };

/** How a phone's group message reaches companions: `garbled`, their `skmsg` does not decrypt once (a retry receipt gets a good resend). */
export interface GroupSendOptions {
  companions?: 'garbled';
}

/** Most characters a text sent through the control API may have (WhatsApp's limit is 65 536). */
const MAX_TEXT = 65_536;

/**
 * Group messages with sender keys: a client's `<message to="…@g.us">` carries one `skmsg` (the message
 * under its sender key) and, in `<participants>`, 1:1 copies of its sender-key distribution message for the
 * devices that lack the key. The server fans it out to every member device as
 * `<message from="group" participant="author device">` with that device's copy before the `skmsg` (the
 * order clients decrypt in); phones decrypt theirs and answer delivery receipts naming themselves as
 * `participant`. Phones send into groups the same way.
 */
export class GroupMessages {
  private readonly retries: GroupRetries;

  constructor(
    private readonly network: Network, private readonly groups: Groups, private readonly messaging: Messaging, private readonly stanzas: MessageStanzas,
  ) {
    this.retries = new GroupRetries(network, messaging, (device, original, enc) => this.resendTo(device, original, enc));
    messaging.onGroupRetry((device, node) => this.retries.answer(device, node));
  }

  feature(): Feature {
    return { stanzas: { message: (connection, node) => this.fromClient(connection, node) } };
  }

  async phoneSendsText(fromNumber: string, groupJid: string, text: string, options: GroupSendOptions = {}): Promise<SentMessage> {
    this.network.account(fromNumber);
    if (typeof text !== 'string' || text.length === 0 || text.length > MAX_TEXT) {
      throw new SimError(400, 'invalid_text', `text must be a non-empty string of at most ${MAX_TEXT} characters`, { field: 'text' });
    }
    if (options.companions !== undefined && options.companions !== 'garbled') {
      throw new SimError(400, 'invalid_request', 'companions must be "garbled" when given', { field: 'companions' });
    }
    return this.phoneSends(fromNumber, this.sendable(fromNumber, groupJid).jid, { conversation: text }, text, options);
  }

  /** The group `groupJid` (its JID or id), if the phone of `fromNumber` may send into it; else 404 or 403. */
  sendable(fromNumber: string, groupJid: string): Group {
    const from = this.network.account(fromNumber);
    const group = this.groups.all().find((g) => g.jid === groupJid || g.id === groupJid);
    if (!group) throw new SimError(404, 'group_not_found', `no group ${groupJid}`, { group: groupJid });
    if (!group.members.has(from.number)) throw new SimError(403, 'not_a_member', `${from.number} is not a member of ${group.jid}`, { group: group.jid });
    if (group.announce && group.members.get(from.number) === 'member') throw new SimError(403, 'announcement_group', 'only admins send in this group', { group: group.jid });
    return group;
  }

  /** How the group names the account of `number` in message content (mentions): by LID in a LID-addressed group. */
  nameOf(group: Group, number: string): string {
    return this.groups.addressing(group).participant(number).jid!;
  }

  /**
   * The phone of `fromNumber` sends any message into a group it may send in: under its sender key, with
   * the key's distribution message 1:1 to every member device. `text` is the record's text. The phone keeps
   * the message to resend it to a companion that asks (group-retries.ts).
   */
  async phoneSends(fromNumber: string, groupJid: string, message: proto.IMessage, text: string, options: GroupSendOptions = {}): Promise<SentMessage> {
    const from = this.network.account(fromNumber);
    const group = this.sendable(fromNumber, groupJid);
    const id = `3A${randomBytes(9).toString('hex').toUpperCase()}`;
    const pnAuthor = `${from.number}@s.whatsapp.net`;
    // In a LID group the phone's sender key goes out under its LID (participant), its sessions stay the number's.
    const author = this.groups.addressing(group).device(pnAuthor).participant!;
    const record = this.messaging.recordSent(from, { id, to: group.jid, text, timestamp: Number(unixNow()), devices: [], receipts: [] });
    const { ciphertext, distribution } = await from.phone.encryptGroup(group.jid, author, message);
    const skdm: proto.IMessage = { senderKeyDistributionMessage: { groupId: group.jid, axolotlSenderKeyDistributionMessage: distribution } };
    this.retries.remember(id, { from, group: group.jid, authorJid: author, message, record });
    for (const { account, jid } of this.memberDevices(group, pnAuthor)) {
      // The phone keeps no sender-key memory: every device gets the distribution message again, which clients accept.
      await this.messaging.ensureSession(from, jid);
      const copy = await from.phone.encrypt(jid, skdm);
      const skmsg = options.companions === 'garbled' && deviceOf(jid) !== 0 ? randomBytes(ciphertext.length) : ciphertext;
      await this.toDevice(group.jid, account, from, jid, author, id, record.timestamp, stanzaType(message), copy, undefined, skmsg, pnAuthor);
      record.devices.push(jid);
    }
    return record;
  }

  private async fromClient(connection: ClientConnection, node: BinaryNode): Promise<void> {
    const session = this.network.session(connection);
    const { id, to } = node.attrs;
    if (!session || !id || !to?.endsWith('@g.us')) return;
    const t = Number(unixNow());
    const { account, device } = session;
    if (!this.stanzas.admit(connection, node, account)) return;
    const group = this.groups.all().find((g) => g.jid === to);
    const skmsg = getBinaryNodeChildren(node, 'enc').find((e) => e.attrs.type === 'skmsg');
    // Not a member, or a member who may not send: WhatsApp drops it (the sender sees no delivery).
    if (!group?.members.has(account.number) || (group.announce && group.members.get(account.number) === 'member')) return;
    if (!skmsg) return this.resendFromClient(node, group, account, device, t);
    if (!(skmsg.content instanceof Uint8Array)) return;
    const copies = new Map<string, BinaryNode>();
    for (const to of getBinaryNodeChildren(getBinaryNodeChild(node, 'participants'), 'to')) {
      const target = this.network.accountOf(to.attrs.jid ?? '');
      const enc = getBinaryNodeChild(to, 'enc');
      if (target && enc?.content instanceof Uint8Array) copies.set(`${target.number}:${deviceOf(to.attrs.jid!)}`, enc);
    }
    const identity = getBinaryNodeChild(node, 'device-identity');
    // The author as the group names it: in a LID group the sending device's LID JID; the phones' sessions are the device's number form.
    const author = this.groups.addressing(group).device(device.jid).participant!;
    // Members whose companions get this message garbled (Simulator.garbleIncoming): their skmsg does not decrypt.
    const garbled = new Set([...group.members.keys()].map((n) => this.network.accounts.get(n)).filter((a): a is Account => !!a && a !== account && this.messaging.relay.garbles(a)));
    for (const member of this.memberDevices(group, device.jid)) {
      const enc = copies.get(`${member.account.number}:${deviceOf(member.jid)}`);
      const copy = enc ? { type: enc.attrs.type === 'pkmsg' ? 'pkmsg' as const : 'msg' as const, ciphertext: Buffer.from(enc.content as Uint8Array) } : undefined;
      const companion = deviceOf(member.jid) !== 0;
      const body = companion && garbled.has(member.account) ? randomBytes(64) : Buffer.from(skmsg.content);
      await this.toDevice(group.jid, member.account, account, member.jid, author, id, t, node.attrs.type ?? 'text', copy, identity, body, device.jid);
      if (companion) this.messaging.relay.remember(id, device.jid, member.jid);
    }
  }

  /**
   * A client's resend of its group message to the one device that asked for a retry (Baileys sendMessagesAgain:
   * `<message to="group" participant="device"><enc type="pkmsg|msg" count=N>`, the sender-key distribution
   * inside, no `skmsg`), to that member's companion only.
   */
  private resendFromClient(node: BinaryNode, group: Group, account: Account, device: CompanionDevice, t: number): void {
    const target = this.network.companionOf(node.attrs.participant ?? '');
    const enc = getBinaryNodeChild(node, 'enc');
    if (!target || target === device || !group.members.has(this.network.accountOf(target.jid)!.number) || !(enc?.content instanceof Uint8Array)) return;
    const identity = getBinaryNodeChild(node, 'device-identity');
    const content: BinaryNode[] = [{ tag: 'enc', attrs: { ...enc.attrs }, content: Buffer.from(enc.content) }];
    if (enc.attrs.type === 'pkmsg' && identity) content.push(identity);
    const author = this.groups.addressing(group).device(device.jid).participant!;
    this.toCompanion(target, group.jid, account, author, node.attrs.id!, t, node.attrs.type ?? 'text', content);
  }

  /** Every device of every member (phones as `number@s.whatsapp.net`), except the author's own. */
  private memberDevices(group: Group, authorJid: string): Array<{ account: Account; jid: string }> {
    const devices: Array<{ account: Account; jid: string }> = [];
    for (const number of group.members.keys()) {
      const account = this.network.accounts.get(number);
      if (!account) continue;
      for (const jid of [`${number}@s.whatsapp.net`, ...[...account.companions.values()].map((d) => d.jid)]) {
        if (jid !== authorJid) devices.push({ account, jid });
      }
    }
    return devices;
  }

  /**
   * One device gets a sender-key message of `chat` (a group, or status@broadcast): a phone decrypts it (and
   * answers delivery), a companion gets the stanza. `authorJid` names the author's device as its sender key
   * does; `sessionJid` the device its 1:1 copy comes from when that differs (a story's key is under the
   * author's LID, Baileys relayMessage, while its sessions with phones are under the number). A phone that
   * already has the message (a resend to all after another device's retry receipt: Baileys sendMessagesAgain)
   * moves its keys on but keeps and acknowledges it once; one that cannot decrypt a companion's group message
   * asks that device for a retry, from the group with itself as `participant` (whatsmeow retry.go sendRetryReceipt).
   */
  async toDevice(chat: string, target: Account, author: Account, jid: string, authorJid: string, id: string, t: number, type: string,
    copy: Copy | undefined, identity: BinaryNode | undefined, skmsg: Buffer, sessionJid = authorJid): Promise<void> {
    if (deviceOf(jid) === 0) {
      const fresh = target !== author && !target.phone.received.some((m) => m.id === id && m.group === chat);
      try {
        const received = await target.phone.receiveGroup(id, chat, authorJid, copy, skmsg, t, fresh, sessionJid);
        // The author's key may be under its LID: the record names the author's number either way.
        received.fromNumber = author.number;
        if (fresh) await this.messaging.phoneGot(target, received);
        if (fresh) this.messaging.acknowledge(target, author, id, chat);
      } catch (error) {
        this.messaging.recordFailure(target, { id, from: authorJid, type: 'skmsg', error: (error as Error).message, at: Date.now() });
        const group = this.groups.all().find((g) => g.jid === chat);
        if (group && fresh) this.messaging.retries.ask(target, sessionJid, id, { from: chat, ...this.groups.addressing(group).device(`${target.number}@s.whatsapp.net`) });
      }
      return;
    }
    const companion = this.network.companionOf(jid);
    if (!companion) return;
    const content: BinaryNode[] = [];
    if (copy) content.push({ tag: 'enc', attrs: { v: '2', type: copy.type }, content: copy.ciphertext });
    content.push({ tag: 'enc', attrs: { v: '2', type: 'skmsg' }, content: skmsg });
    if (copy?.type === 'pkmsg' && identity) content.push(identity);
    this.toCompanion(companion, chat, author, authorJid, id, t, type, content);
  }

  /** A phone's resend of its group message to one companion (group-retries.ts): the 1:1 copy alone, named as the first. */
  private resendTo(device: CompanionDevice, original: GroupResendable, enc: BinaryNode): void {
    const { group, from, authorJid, message, record } = original;
    this.toCompanion(device, group, from, authorJid, record.id, record.timestamp, stanzaType(message), [enc]);
  }

  /** A `<message>` of `chat` to a companion from the author's device as the chat names it. */
  private toCompanion(companion: CompanionDevice, chat: string, author: Account, authorJid: string, id: string, t: number, type: string, content: BinaryNode[]): void {
    // A LID group's message names the author's number beside its LID (`participant_pn`, group-addressing.ts).
    const lidGroup = authorJid.endsWith('@lid') && chat.endsWith('@g.us');
    this.network.deliver(companion, {
      tag: 'message',
      attrs: {
        from: chat, participant: authorJid, ...(lidGroup ? { participant_pn: `${author.number}@s.whatsapp.net` } : {}), id, type, t: String(t), notify: author.pushName,
        addressing_mode: authorJid.endsWith('@lid') ? 'lid' : 'pn',
      },
      content,
    });
  }
}
