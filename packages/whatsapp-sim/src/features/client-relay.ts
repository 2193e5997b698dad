import { randomBytes } from 'node:crypto';
import { getBinaryNodeChild, getBinaryNodeChildren } from '@whiskeysockets/baileys';
import type { BinaryNode } from '@whiskeysockets/baileys';
import type { ClientConnection } from '../transport/connection.js';
import { deviceOf, unixNow, userJid } from '../network/network.js';
import type { Network } from '../network/network.js';
import type { Account, CompanionDevice } from '../network/model.js';
import { blocks } from '../network/model.js';
import type { MessageStanzas } from './message-stanzas.js';

/** Hands a copy addressed to a phone (device 0) to that phone: it decrypts it and, when `keep`, keeps and acknowledges it. */
export type PhoneInbox = (phoneAccount: Account, id: string, fromDevice: string, type: 'pkmsg' | 'msg', ciphertext: Buffer, keep: boolean) => Promise<void>;

/** Client messages the relay remembers, to relay retry receipts for them; the oldest go first. */
export const MAX_RELAYED = 1000;

/**
 * The relay of clients' 1:1 `<message>` stanzas: each copy in `<participants>` (or the one `<enc>` of peer
 * traffic, or of a resend addressed to one device) goes to the device it names — a phone decrypts its own, a
 * companion gets it now or at its next login. Only the destination's devices and the sender's own get
 * copies. Group messages and stories are relayed by their own features (group-messages.ts, status.ts).
 *
 * Retry receipts between companions: a companion that cannot decrypt another client's copy answers
 * `<receipt type="retry" to="sender device">` (in a group `to` the group, `participant` the sender's device);
 * the server hands it to that device (`from` the asking
 * device, its `<retry>`, `<registration>` and `<keys>` as sent), and the sender's resend — Baileys relays it
 * to that device alone, `<message to="device"><enc count=N>` (Socket/messages-send.js relayMessage with
 * `participant`) — goes to it like any copy. whatsmeow does the same both ways (retry.go sendRetryReceipt,
 * handleRetryReceipt). The server relays a retry receipt only for a message it relayed from that device to
 * the asking one.
 */
export class ClientRelay {
  /** Recent client messages: `id` → the sending device and the devices that got a copy. */
  private readonly relayed = new Map<string, { from: string; to: Set<string> }>();
  /** Accounts whose companions get the next messages from other accounts' clients garbled, and how many. */
  private readonly garbling = new Map<Account, number>();

  constructor(private readonly network: Network, private readonly stanzas: MessageStanzas, private readonly toPhone: PhoneInbox) {}

  /**
   * The next `messages` messages other accounts' clients send to `account` reach its companions as a `msg`
   * no session decrypts (its phone gets a good copy); their resends (`<enc count>`) go through untouched.
   */
  garbleNext(account: Account, messages: number): void {
    this.garbling.set(account, messages);
  }

  /**
   * A companion's retry receipt for another client's message: to the device that sent it, when the server
   * relayed that message from it to the asking device. In a 1:1 chat the receipt is `to` the sender's device
   * and comes `from` the asking one; in a group it is `to` the group with the sender's device as `participant`,
   * and comes from the group with the asking device as `asker` names it (`participant`, by LID in a LID
   * group). Answers whether it was relayed.
   */
  retry(asking: CompanionDevice, node: BinaryNode, asker?: Record<string, string>): boolean {
    const { id, to } = node.attrs;
    const group = to?.endsWith('@g.us') ? to : undefined;
    const sender = this.network.companionOf((group ? node.attrs.participant : to) ?? '');
    const relayed = this.relayed.get(id ?? '');
    if (!sender || !relayed || relayed.from !== sender.jid || !relayed.to.has(asking.jid)) return false;
    const attrs: Record<string, string> = { ...(group ? { from: group, ...asker } : { from: asking.jid }), id: id!, type: 'retry', t: unixNow() };
    if (node.attrs.recipient) attrs.recipient = node.attrs.recipient;
    const content = Array.isArray(node.content) ? node.content : undefined;
    this.network.deliver(sender, { tag: 'receipt', attrs, content });
    return true;
  }

  async message(connection: ClientConnection, node: BinaryNode): Promise<void> {
    const session = this.network.session(connection);
    const { id, to } = node.attrs;
    if (!session || !id || !to || to.endsWith('@g.us') || to.endsWith('@broadcast')) return;
    const { account, device } = session;
    const t = unixNow();
    if (!this.stanzas.admit(connection, node, account)) return;
    const peer = node.attrs.category === 'peer';
    // A resend answering a retry receipt is addressed to the one device (`recipient` the chat, when it is the sender's own).
    const resend = !peer && !getBinaryNodeChild(node, 'participants') && deviceOf(to) !== 0;
    const copies = peer || resend
      ? [{ jid: to, enc: getBinaryNodeChild(node, 'enc') }]
      : getBinaryNodeChildren(getBinaryNodeChild(node, 'participants'), 'to').map((p) => ({ jid: p.attrs.jid ?? '', enc: getBinaryNodeChild(p, 'enc') }));
    const chat = resend && node.attrs.recipient ? node.attrs.recipient : to;
    const destination = this.network.accountOf(chat);
    const garbled = !peer && !resend && destination && destination !== account && this.garbles(destination);
    // Peer traffic (app-state keys, history requests) only goes between one account's own devices.
    if (peer && destination !== account) return;
    for (const { jid, enc } of copies) {
      const target = this.network.accountOf(jid);
      // A copy may only go to the destination's devices or the sender's own: nothing is relayed to third parties.
      if (!target || (target !== destination && target !== account) || !enc || !(enc.content instanceof Uint8Array)) continue;
      // An account that blocked the sender gets nothing; the server still acks, so the sender sees one tick.
      if (blocks(target, account)) continue;
      const type = enc.attrs.type === 'pkmsg' ? 'pkmsg' : 'msg';
      const ciphertext = Buffer.from(enc.content);
      if (deviceOf(jid) === 0) {
        // A phone keeps what others sent it; its own account's copies (sent messages, peer traffic) only move its sessions on.
        await this.toPhone(target, id, device.jid, type, ciphertext, target !== account);
        continue;
      }
      const companion = this.network.companionOf(jid);
      if (!companion || companion === device) continue;
      const attrs: Record<string, string> = { from: device.jid, id, type: node.attrs.type ?? 'text', t };
      if (account.pushName) attrs.notify = account.pushName;
      if (target === account && destination && destination !== account) attrs.recipient = userJid(chat);
      if (peer) attrs.category = 'peer';
      const content: BinaryNode[] = garbled && target === destination
        ? [{ tag: 'enc', attrs: { v: '2', type: 'msg' }, content: randomBytes(64) }]
        : [{ tag: 'enc', attrs: { ...enc.attrs }, content: ciphertext }];
      const identity = getBinaryNodeChild(node, 'device-identity');
      if (type === 'pkmsg' && identity) content.push(identity);
      this.network.deliver(companion, { tag: 'message', attrs, content });
      if (!peer) this.remember(id, device.jid, companion.jid);
    }
  }

  /** Remembers that the server relayed client message `id` from device `from` to device `to` (for retry receipts). */
  remember(id: string, from: string, to: string): void {
    const entry = this.relayed.get(id);
    if (entry?.from === from) entry.to.add(to);
    else this.relayed.set(id, { from, to: new Set([to]) });
    while (this.relayed.size > MAX_RELAYED) this.relayed.delete(this.relayed.keys().next().value!);
  }

  /** Whether the next client message to `account` (1:1, or in a group it is in) is one to garble (counting it). */
  garbles(account: Account): boolean {
    const left = this.garbling.get(account) ?? 0;
    if (left <= 0) return false;
    if (left === 1) this.garbling.delete(account);
    else this.garbling.set(account, left - 1);
    return true;
  }
}
