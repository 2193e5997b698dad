import type { SqliteDatabase } from '../sqlite-database.js';

/** A message's sort key in its chat: numeric timestamp, then `seq` (first insertion order). */
export type OrderKey = { timestamp: number; seq: number };

/** A block of a chat's order: its lower bound, the rank of its first message, its size. */
type Block = { timestamp: number; seq: number; start: number; n: number };

/** Messages per block after a split; a block splits beyond twice this (migration 7 builds blocks of 256). */
export const BLOCK_SIZE = 256;

/*
 * Parameters compared with indexed columns are written `+?`: with a bare `?`, SQLite (built with
 * STAT4, as better-sqlite3 is) recompiles the statement whenever such a parameter is bound, which made
 * each of these statements cost ten times its work. The unary plus leaves the value and the plan as
 * they are (the query-plan test checks the plans).
 */
const BLOCK = 'SELECT timestamp, seq, start, n FROM message_blocks WHERE instance = +? AND chat = +?';

/**
 * Ranks in a chat's message order without OFFSET over the chat or COUNT(*) (issue 26). Each chat's
 * messages, ordered oldest first by (timestamp, seq), are cut into blocks of contiguous key ranges,
 * rows of `message_blocks` (migration 7) holding each block's lower-bound key, size and `start`: the
 * rank of its first message, the sizes of the blocks before it summed. Every write of a message
 * updates its block in the same transaction. Rank r is then found by seeking the block whose start
 * is the greatest not above r, and stepping at most one block (under 2 × BLOCK_SIZE index entries)
 * into it: the cost of a page is bounded at any chat size and depth.
 *
 * A message added or removed moves the starts of the blocks after its own by one: nothing at the
 * newest end (live messages), a chat's size / BLOCK_SIZE block rows at worst (history older than
 * what is stored), never the messages' own rows. A block beyond twice BLOCK_SIZE splits in two; one
 * that shrinks under half of it joins the block before when they fit in BLOCK_SIZE together.
 * Callers run these inside one transaction, with the message's row already written (add) or
 * already gone (remove).
 */
export class ChatOrder {
  constructor(private readonly db: SqliteDatabase, private readonly blockSize = BLOCK_SIZE) {}

  /** The chat's number of messages. */
  total(instance: string, chat: string): number {
    const last = this.db.get<Block>(`${BLOCK} ORDER BY start DESC LIMIT 1`, [instance, chat]);
    return last ? last.start + last.n : 0;
  }

  /** The key of the message of rank `rank` (0: the oldest), which must exist. */
  keyAt(instance: string, chat: string, rank: number): OrderKey | undefined {
    const block = this.db.get<Block>(`${BLOCK} AND start <= +? ORDER BY start DESC LIMIT 1`, [instance, chat, rank]);
    if (!block) return undefined;
    return this.db.get<OrderKey>(
      `SELECT timestamp, seq FROM messages WHERE instance = +? AND chat = +? AND (timestamp, seq) >= (+?, +?)
       ORDER BY timestamp, seq LIMIT 1 OFFSET ?`,
      [instance, chat, block.timestamp, block.seq, rank - block.start],
    );
  }

  /** Counts a message whose row is written with `key`. */
  add(instance: string, chat: string, key: OrderKey): void {
    let block = this.blockOf(instance, chat, key);
    if (!block) {
      // Older than every block: the first block extends down to it, or the chat's first block begins.
      block = this.db.get<Block>(`${BLOCK} ORDER BY timestamp, seq LIMIT 1`, [instance, chat]);
      if (!block) {
        this.db.run('INSERT INTO message_blocks (instance, chat, timestamp, seq, start, n) VALUES (?, ?, ?, ?, 0, 1)',
          [instance, chat, key.timestamp, key.seq]);
        return;
      }
      this.db.run('UPDATE message_blocks SET timestamp = ?, seq = ? WHERE instance = +? AND chat = +? AND timestamp = +? AND seq = +?',
        [key.timestamp, key.seq, instance, chat, block.timestamp, block.seq]);
      block = { ...block, ...key };
    }
    this.resize(instance, chat, block, 1);
    if (block.n + 1 > 2 * this.blockSize) this.split(instance, chat, { ...block, n: block.n + 1 });
  }

  /** Uncounts a message whose row, written with `key`, is gone. */
  remove(instance: string, chat: string, key: OrderKey): void {
    const block = this.blockOf(instance, chat, key);
    if (!block) return;
    this.resize(instance, chat, block, -1);
    const n = block.n - 1;
    if (n === 0) {
      this.deleteBlock(instance, chat, block);
      return;
    }
    if (n >= this.blockSize / 2) return;
    const before = this.db.get<Block>(`${BLOCK} AND (timestamp, seq) < (+?, +?) ORDER BY timestamp DESC, seq DESC LIMIT 1`,
      [instance, chat, block.timestamp, block.seq]);
    if (before && before.n + n <= this.blockSize) {
      // The block before extends over this one's range; the starts after are unchanged.
      this.deleteBlock(instance, chat, block);
      this.db.run('UPDATE message_blocks SET n = n + ? WHERE instance = +? AND chat = +? AND timestamp = +? AND seq = +?',
        [n, instance, chat, before.timestamp, before.seq]);
    }
  }

  /** Drops a chat's blocks, when all its messages are deleted. */
  forget(instance: string, chat: string): void {
    this.db.run('DELETE FROM message_blocks WHERE instance = +? AND chat = +?', [instance, chat]);
  }

  /** Drops every block of an instance. */
  clear(instance: string): void {
    this.db.run('DELETE FROM message_blocks WHERE instance = +?', [instance]);
  }

  /** The block whose range holds `key`: the one with the greatest lower bound not above it. */
  private blockOf(instance: string, chat: string, key: OrderKey): Block | undefined {
    return this.db.get<Block>(`${BLOCK} AND (timestamp, seq) <= (+?, +?) ORDER BY timestamp DESC, seq DESC LIMIT 1`,
      [instance, chat, key.timestamp, key.seq]);
  }

  /**
   * Changes a block's size by `by` and the starts of every block after it, in one statement over the
   * start index (starts are distinct: no block is empty).
   */
  private resize(instance: string, chat: string, block: Block, by: 1 | -1): void {
    this.db.run(
      `UPDATE message_blocks SET n = n + iif(start = +?, ?, 0), start = start + iif(start > +?, ?, 0)
       WHERE instance = +? AND chat = +? AND start >= +?`,
      [block.start, by, block.start, by, instance, chat, block.start],
    );
  }

  /** Cuts a block in two at its message of offset BLOCK_SIZE. */
  private split(instance: string, chat: string, block: Block): void {
    const cut = this.db.get<OrderKey>(
      `SELECT timestamp, seq FROM messages WHERE instance = +? AND chat = +? AND (timestamp, seq) >= (+?, +?)
       ORDER BY timestamp, seq LIMIT 1 OFFSET ?`,
      [instance, chat, block.timestamp, block.seq, this.blockSize],
    )!;
    this.db.run('UPDATE message_blocks SET n = ? WHERE instance = +? AND chat = +? AND timestamp = +? AND seq = +?',
      [this.blockSize, instance, chat, block.timestamp, block.seq]);
    this.db.run('INSERT INTO message_blocks (instance, chat, timestamp, seq, start, n) VALUES (?, ?, ?, ?, ?, ?)',
      [instance, chat, cut.timestamp, cut.seq, block.start + this.blockSize, block.n - this.blockSize]);
  }

  private deleteBlock(instance: string, chat: string, block: Block): void {
    this.db.run('DELETE FROM message_blocks WHERE instance = +? AND chat = +? AND timestamp = +? AND seq = +?',
      [instance, chat, block.timestamp, block.seq]);
  }
}
