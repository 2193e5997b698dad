import { getBinaryNodeChild, getBinaryNodeChildren } from '@whiskeysockets/baileys';
import type { BinaryNode } from '@whiskeysockets/baileys';
import type { ClientConnection } from '../transport/connection.js';
import { deviceOf, unixNow, userJid } from '../network/network.js';
import type { Network } from '../network/network.js';
import type { Account } from '../network/model.js';
import { blocks } from '../network/model.js';
import type { MessageStanzas } from './message-stanzas.js';

/** Hands a copy addressed to a phone (device 0) to that phone: it decrypts it and, when `keep`, keeps and acknowledges it. */
export type PhoneInbox = (phoneAccount: Account, id: string, fromDevice: string, type: 'pkmsg' | 'msg', ciphertext: Buffer, keep: boolean) => Promise<void>;

/**
 * The relay of clients' 1:1 `<message>` stanzas: each copy in `<participants>` (or the one `<enc>` of peer
 * traffic) goes to the device it names — a phone decrypts its own, a companion gets it now or at its next
 * login. Only the destination's devices and the sender's own get copies. Group messages and stories are
 * relayed by their own features (group-messages.ts, status.ts).
 */
export class ClientRelay {
  constructor(private readonly network: Network, private readonly stanzas: MessageStanzas, private readonly toPhone: PhoneInbox) {}

  async message(connection: ClientConnection, node: BinaryNode): Promise<void> {
    const session = this.network.session(connection);
    const { id, to } = node.attrs;
    if (!session || !id || !to || to.endsWith('@g.us') || to.endsWith('@broadcast')) return;
    const { account, device } = session;
    const t = unixNow();
    if (!this.stanzas.admit(connection, node, account)) return;
    const peer = node.attrs.category === 'peer';
    const copies = peer
      ? [{ jid: to, enc: getBinaryNodeChild(node, 'enc') }]
      : getBinaryNodeChildren(getBinaryNodeChild(node, 'participants'), 'to').map((p) => ({ jid: p.attrs.jid ?? '', enc: getBinaryNodeChild(p, 'enc') }));
    const destination = this.network.accountOf(to);
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
      if (target === account && destination && destination !== account) attrs.recipient = userJid(to);
      if (peer) attrs.category = 'peer';
      const content: BinaryNode[] = [{ tag: 'enc', attrs: { ...enc.attrs }, content: ciphertext }];
      const identity = getBinaryNodeChild(node, 'device-identity');
      if (type === 'pkmsg' && identity) content.push(identity);
      this.network.deliver(companion, { tag: 'message', attrs, content });
    }
  }
}
