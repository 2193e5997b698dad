/** A message's place in its chat's order: numeric timestamp, then first insertion rank. */
export interface Ordered {
  timestamp: number;
  seq: number;
}

function before(a: Ordered, b: Ordered): boolean {
  return a.timestamp < b.timestamp || (a.timestamp === b.timestamp && a.seq < b.seq);
}

/**
 * Each chat's messages in an array kept sorted oldest first, updated by every write: a page is a
 * slice from the newest end and a total the array's length, so reads cost the page, not the
 * instance's history (sorting every message of the instance per page did). Writes find their place
 * by binary search.
 */
export class ChatOrders<T extends Ordered> {
  private readonly chats = new Map<string, T[]>();

  add(chat: string, entry: T): void {
    let list = this.chats.get(chat);
    if (!list) this.chats.set(chat, list = []);
    list.splice(this.position(list, entry), 0, entry);
  }

  remove(chat: string, entry: T): void {
    const list = this.chats.get(chat);
    if (!list) return;
    const at = this.position(list, entry);
    if (list[at] === entry) list.splice(at, 1);
    if (list.length === 0) this.chats.delete(chat);
  }

  /** Page `page` (from 1) of `limit` entries, newest first, and the chat's size. */
  page(chat: string, page: number, limit: number): { items: T[]; total: number } {
    const list = this.chats.get(chat) ?? [];
    const end = Math.max(0, list.length - (page - 1) * limit);
    return { items: list.slice(Math.max(0, end - limit), end).reverse(), total: list.length };
  }

  /**
   * Up to `limit` entries after the position `after` (a chat and an entry's place in it): chats in
   * code-unit order, each oldest first.
   */
  scan(after: { chat: string; at: Ordered } | undefined, limit: number): T[] {
    const out: T[] = [];
    const names = [...this.chats.keys()].filter((chat) => !after || chat >= after.chat).sort();
    for (const chat of names) {
      const list = this.chats.get(chat)!;
      // Half a rank past the position: the first entry strictly after it, whether it is still there or not.
      const from = after?.chat === chat ? this.position(list, { timestamp: after.at.timestamp, seq: after.at.seq + 0.5 }) : 0;
      out.push(...list.slice(from, from + limit - out.length));
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Every entry of a chat, which the caller drops. */
  take(chat: string): T[] {
    const list = this.chats.get(chat) ?? [];
    this.chats.delete(chat);
    return list;
  }

  /** The first index whose entry does not sort before `entry`. */
  private position(list: readonly T[], entry: Ordered): number {
    let low = 0;
    let high = list.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (before(list[middle]!, entry)) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
