/**
 * A keyset page request of an enumeration: up to `limit` items (≥ 1) after the position `after` (a
 * previous page's `next`; absent for the first page). Positions are opaque to callers.
 */
export interface ScanRequest {
  limit: number;
  after?: string;
}

/**
 * One page of an enumeration in the back end's stable key order; `next` is present when more items
 * may follow. Items written or deleted during a scan may or may not appear; every item present for
 * the whole scan appears exactly once.
 */
export interface ScanPage<T> {
  items: T[];
  next?: string;
}

/** One entry of an instance's channel auth state, as `AuthStateRepository.scan` lists it. */
export interface AuthStateEntry {
  category: string;
  id: string;
  value: string;
}

/**
 * The page of a scan that read `items` for a request of `limit`: `next` is the position of the last
 * item when the page is full (more may follow), absent otherwise.
 */
export function scanPage<T>(items: T[], limit: number, positionOf: (item: T) => string): ScanPage<T> {
  const last = items.length >= limit ? items[items.length - 1] : undefined;
  return last === undefined ? { items } : { items, next: positionOf(last) };
}

/** Positions of `AuthStateRepository.scan` pages: the category and id of the last entry, as JSON. */
export const authStatePosition = {
  of: (entry: { category: string; id: string }): string => JSON.stringify([entry.category, entry.id]),
  /** The category and id of a position, or undefined for none; a malformed position throws a TypeError. */
  parse(after: string | undefined): [category: string, id: string] | undefined {
    if (after === undefined) return undefined;
    const parsed: unknown = JSON.parse(after);
    if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== 'string' || typeof parsed[1] !== 'string') {
      throw new TypeError(`not an auth state scan position: ${after}`);
    }
    return [parsed[0], parsed[1]];
  },
};

/**
 * Positions of `MessageRepository.scan` pages: the chat, timestamp and insertion rank (a sequence
 * number, or Redis's sorted-set member) of the last message, as JSON.
 */
export const messagePosition = {
  of: (chat: string, timestamp: number, rank: number | string): string => JSON.stringify([chat, timestamp, rank]),
  /** The parts of a position, or undefined for none; a malformed position throws a TypeError. */
  parse(after: string | undefined): [chat: string, timestamp: number, rank: number | string] | undefined {
    if (after === undefined) return undefined;
    const parsed: unknown = JSON.parse(after);
    if (!Array.isArray(parsed) || parsed.length !== 3 || typeof parsed[0] !== 'string' || typeof parsed[1] !== 'number'
      || (typeof parsed[2] !== 'number' && typeof parsed[2] !== 'string')) {
      throw new TypeError(`not a message scan position: ${after}`);
    }
    return [parsed[0], parsed[1], parsed[2]];
  },
};
