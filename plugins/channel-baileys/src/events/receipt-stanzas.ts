import type { BinaryNode } from '@whiskeysockets/baileys';
import { BoundedCache } from '../util/bounded-cache.js';
import { normalizeJid } from '../util/jids.js';

/** Receipts remembered at once, of each kind (each is forgotten once its status is reported, or the oldest first). */
const REMEMBERED = 1_000;

/**
 * What Baileys' receipt updates lose, read from the receipt stanzas themselves (`CB:receipt` on the socket's
 * WebSocket, which Baileys' own handler also hears, before its update is emitted):
 * - a group member's `played` receipt, which Baileys reports as `readTimestamp` of
 *   `message-receipt.update`, like a read (Socket/messages-recv.js `handleReceipt`);
 * - the time (`t`) of a one-to-one delivery receipt: Baileys' event buffer merges a message's delivery and
 *   read updates into one (Utils/event-buffer.js), keeping the read's time only.
 */
export class ReceiptStanzas {
  private readonly played = new BoundedCache<true>({ max: REMEMBERED });
  private readonly delivered = new BoundedCache<number>({ max: REMEMBERED });

  /** Records what a receipt stanza carries (its first id and those of its `<list>`): a played receipt of a member, a delivery's time. */
  observe(node: BinaryNode): void {
    const { type, participant, id, t, recipient } = node.attrs;
    if (!id) return;
    const items = Array.isArray(node.content)
      ? node.content.flatMap((child) => (Array.isArray(child.content) ? child.content : [])).filter((item) => item.tag === 'item')
      : [];
    const ids = [id, ...items.map((item) => item.attrs.id)].filter((x): x is string => Boolean(x));
    if (type === 'played' && participant) {
      for (const messageId of ids) this.played.set(keyOf(messageId, participant), true);
    }
    // A delivery (no type; `inactive` from a client not marked online) by the other person of a one-to-one chat.
    const time = Number(t);
    if ((type === undefined || type === 'inactive') && !participant && !recipient && time > 0) {
      for (const messageId of ids) this.delivered.set(messageId, time);
    }
  }

  /** True (once) when member `member` sent a played receipt for `messageId`. */
  takePlayed(messageId: string, member: string): boolean {
    const key = keyOf(messageId, member);
    const found = this.played.get(key) === true;
    if (found) this.played.del(key);
    return found;
  }

  /** The time (Unix seconds) of the delivery receipt of one-to-one message `messageId`, once; undefined when none was seen. */
  takeDelivered(messageId: string): number | undefined {
    const time = this.delivered.get(messageId);
    if (time !== undefined) this.delivered.del(messageId);
    return time;
  }
}

function keyOf(messageId: string, member: string): string {
  return `${messageId}\u0000${normalizeJid(member)}`;
}
