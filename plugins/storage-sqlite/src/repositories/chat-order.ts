import type { SqliteDatabase, Undo } from '../sqlite-database.js';

/** A message's sort key in its chat: numeric timestamp, then `seq` (first insertion order). */
type OrderKey = { timestamp: number; seq: number };

/** A block of a chat's order: its lower-bound key, the position of its first message, its size. */
type Block = { timestamp: number; seq: number; start: number; n: number };

/** A block with the chat's lowest and highest block starts, which tell the smaller side of it. */
type PlacedBlock = Block & { first: number; last: number };

/** Messages per block after a split; a block splits beyond twice this (migration 7 builds blocks of 256). */
const BLOCK_SIZE = 256;

/*
 * Parameters compared with indexed columns are written `+?`: with a bare `?`, SQLite (built with
 * STAT4, as better-sqlite3 is) recompiles the statement whenever such a parameter is bound, which made
 * each of these statements cost ten times its work. The unary plus leaves the value and the plan as
 * they are (the query-plan test checks the plans).
 */
const BLOCK = 'SELECT timestamp, seq, start, n FROM message_blocks WHERE instance = +? AND chat = +?';

/**
 * A message that sorts after the lower bound of the chat's last block (by key, which is also the last
 * by position) joins that block: its size grows by one and no start moves. Live messages are the
 * newest, so this is nearly every add, in one statement instead of a read and an update (issue 26).
 */
const GROW_LAST = `UPDATE message_blocks SET n = n + 1
  WHERE instance = +? AND chat = +? AND (timestamp, seq) <= (+?, +?)
    AND (timestamp, seq) = (SELECT timestamp, seq FROM message_blocks WHERE instance = +? AND chat = +? ORDER BY timestamp DESC, seq DESC LIMIT 1)
  RETURNING timestamp, seq, start, n`;

/**
 * Ranks in a chat's message order without OFFSET over the chat or COUNT(*) (issue 26). Each chat's
 * messages, ordered oldest first by (timestamp, seq), are cut into blocks of contiguous key ranges,
 * rows of `message_blocks` (migration 7) holding each block's lower-bound key, size and `start`: the
 * position of its first message, so that a message's rank is its position less the first block's
 * start. Every write of a message updates the blocks in the same transaction. Rank r is found by
 * seeking the block whose start is the greatest not above the first block's start + r, and stepping
 * less than one block (2 × BLOCK_SIZE index entries) into it: a page costs the same at any chat size
 * and depth.
 *
 * A message added to or removed from a block moves by one the starts of the blocks on the smaller
 * side of it: the blocks after it, or the block itself and those before it (which moves the first
 * start, so the ranks come out the same). Nothing at either end of the chat — live messages are the
 * newest, history older than what is stored the oldest — and at most half the chat's blocks (its size
 * / 512 small rows) in between; the messages' own rows never change. A block beyond twice BLOCK_SIZE
 * splits in two; one under half of it joins the block before when they fit in BLOCK_SIZE together.
 * Callers run these inside one transaction, with the message's row already written (add) or already
 * gone (remove).
 */
export class ChatOrder {
  constructor(private readonly db: SqliteDatabase, private readonly blockSize = BLOCK_SIZE) {}

  /**
   * The chat's number of messages and, when `skip` is between 0 and it, the key of the newest message
   * after the `skip` newest: a page reads down from it.
   */
  fromNewest(instance: string, chat: string, skip: number): { total: number; bound?: OrderKey } {
    const ends = this.ends(instance, chat);
    if (!ends) return { total: 0 };
    const total = ends.last.start + ends.last.n - ends.first.start;
    if (skip <= 0 || skip >= total) return { total };
    const position = ends.first.start + total - 1 - skip;
    const block = this.db.get<Block>(`${BLOCK} AND start <= +? ORDER BY start DESC LIMIT 1`, [instance, chat, position])!;
    const bound = this.db.get<OrderKey>(
      `SELECT timestamp, seq FROM messages WHERE instance = +? AND chat = +? AND (timestamp, seq) >= (+?, +?)
       ORDER BY timestamp, seq LIMIT 1 OFFSET ?`,
      [instance, chat, block.timestamp, block.seq, position - block.start],
    );
    return bound ? { total, bound } : { total };
  }

  /**
   * Counts a message whose row is written with `key`. Called inside a transaction, or with `undo` inside
   * {@link SqliteDatabase.undoable}: the one statement of nearly every add needs no savepoint, and the
   * rarer paths of several writes run in one.
   */
  add(instance: string, chat: string, key: OrderKey, undo?: Undo): void {
    const grown = this.db.write<Block>(GROW_LAST, [instance, chat, key.timestamp, key.seq, instance, chat]);
    if (grown) {
      if (grown.n <= 2 * this.blockSize) return;
      undo?.(() => this.db.run('UPDATE message_blocks SET n = n - 1 WHERE instance = +? AND chat = +? AND timestamp = +? AND seq = +?',
        [instance, chat, grown.timestamp, grown.seq]));
      this.atomically(undo, () => this.split(instance, chat, grown));
      return;
    }
    this.atomically(undo, () => this.addBelowLast(instance, chat, key));
  }

  /** `work` in a savepoint of its own when the caller undoes by statements, else as part of the caller's transaction. */
  private atomically(undo: Undo | undefined, work: () => void): void {
    if (undo) this.db.transaction(work);
    else work();
  }

  /** Counts a message that sorts before the lower bound of the chat's last block, or the chat's first. */
  private addBelowLast(instance: string, chat: string, key: OrderKey): void {
    let block = this.blockOf(instance, chat, key);
    if (!block) {
      // Older than every block: the first block extends down to it, or the chat's first block begins.
      const first = this.db.get<Block>(`${BLOCK} ORDER BY timestamp, seq LIMIT 1`, [instance, chat]);
      if (!first) {
        this.db.run('INSERT INTO message_blocks (instance, chat, timestamp, seq, start, n) VALUES (?, ?, ?, ?, 0, 1)',
          [instance, chat, key.timestamp, key.seq]);
        return;
      }
      this.db.run('UPDATE message_blocks SET timestamp = ?, seq = ? WHERE instance = +? AND chat = +? AND timestamp = +? AND seq = +?',
        [key.timestamp, key.seq, instance, chat, first.timestamp, first.seq]);
      // The first block by key is the first by position: the older side of it is empty.
      block = { ...first, ...key, first: first.start, last: first.start + 1 };
    }
    const start = this.resize(instance, chat, block, 1);
    if (block.n + 1 > 2 * this.blockSize) this.split(instance, chat, { ...block, start, n: block.n + 1 });
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
      // The block before extends over this one's range, whose positions follow its own.
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

  /** The block whose range holds `key` (the greatest lower bound not above it), read with the chat's block starts' range in one statement. */
  private blockOf(instance: string, chat: string, key: OrderKey): PlacedBlock | undefined {
    return this.db.get<PlacedBlock>(
      `SELECT timestamp, seq, start, n,
         (SELECT min(start) FROM message_blocks WHERE instance = +? AND chat = +?) AS first,
         (SELECT max(start) FROM message_blocks WHERE instance = +? AND chat = +?) AS last
       FROM message_blocks WHERE instance = +? AND chat = +? AND (timestamp, seq) <= (+?, +?) ORDER BY timestamp DESC, seq DESC LIMIT 1`,
      [instance, chat, instance, chat, instance, chat, key.timestamp, key.seq],
    );
  }

  /** The chat's first and last blocks by position, or undefined for a chat without messages. */
  private ends(instance: string, chat: string): { first: Block; last: Block } | undefined {
    const first = this.db.get<Block>(`${BLOCK} ORDER BY start LIMIT 1`, [instance, chat]);
    if (!first) return undefined;
    return { first, last: this.db.get<Block>(`${BLOCK} ORDER BY start DESC LIMIT 1`, [instance, chat])! };
  }

  /**
   * Changes a block's size by `by`, moving the starts on the smaller side of it, in one statement over
   * the start index (starts are distinct: no block is empty). Answers the block's new start.
   */
  private resize(instance: string, chat: string, block: PlacedBlock, by: 1 | -1): number {
    if (block.start - block.first < block.last - block.start) {
      this.db.run(
        'UPDATE message_blocks SET n = n + iif(start = +?, ?, 0), start = start - ? WHERE instance = +? AND chat = +? AND start <= +?',
        [block.start, by, by, instance, chat, block.start],
      );
      return block.start - by;
    }
    this.db.run(
      `UPDATE message_blocks SET n = n + iif(start = +?, ?, 0), start = start + iif(start > +?, ?, 0)
       WHERE instance = +? AND chat = +? AND start >= +?`,
      [block.start, by, block.start, by, instance, chat, block.start],
    );
    return block.start;
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
