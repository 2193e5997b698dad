import type { BinaryNode } from '@whiskeysockets/baileys';
import { BoundedCache } from '../util/bounded-cache.js';
import { normalizeJid } from '../util/jids.js';

/** Receipts remembered at once (each is forgotten once its status is reported). */
const REMEMBERED = 1_000;

/**
 * The `played` receipts members of a group sent, from the receipt stanzas themselves: Baileys
 * reports a member's `played` as `readTimestamp` of `message-receipt.update`, like a read
 * (Socket/messages-recv.js `handleReceipt`), so it cannot be told apart afterwards. This listens to
 * the same `receipt` stanzas on the socket's WebSocket (`CB:receipt`, which Baileys' own handler
 * also hears, before its update is emitted).
 */
export class PlayedReceipts {
  private readonly seen = new BoundedCache<true>({ max: REMEMBERED });

  /** Records the played receipt a stanza carries (its first id and those of its `<list>`), if it is one. */
  observe(node: BinaryNode): void {
    const { type, participant, id } = node.attrs;
    if (type !== 'played' || !participant || !id) return;
    const items = Array.isArray(node.content)
      ? node.content.flatMap((child) => (Array.isArray(child.content) ? child.content : [])).filter((item) => item.tag === 'item')
      : [];
    for (const messageId of [id, ...items.map((item) => item.attrs.id)]) {
      if (messageId) this.seen.set(keyOf(messageId, participant), true);
    }
  }

  /** True (once) when member `member` sent a played receipt for `messageId`. */
  take(messageId: string, member: string): boolean {
    const key = keyOf(messageId, member);
    const found = this.seen.get(key) === true;
    if (found) this.seen.del(key);
    return found;
  }
}

function keyOf(messageId: string, member: string): string {
  return `${messageId}\u0000${normalizeJid(member)}`;
}
