import type pg from 'pg';
import { ServiceUnavailableError } from '@parley/core';
import { isTransient } from './pg-errors.js';
import { prepared } from './queryable.js';

/** Options of {@link GroupCommit}. */
export interface GroupCommitOptions {
  /** Checks a connection out of the pool (bounded by the pool's checkout time-out). */
  connect(): Promise<pg.PoolClient>;
  /** Longest wait of a statement in the writer's queue before it answers 503 without running. */
  timeoutMs: number;
  /** Writes of one batch at most: the batch is committed once it has this many. */
  maxWrites: number;
  /** Told after each commit (the database notes a commit whose WAL flush `flush` must await, under `synchronous_commit` off). */
  committed(): void;
  /** Whether other callers wait for a connection of the pool: the writer then gives its own back between batches. */
  othersWaiting(): boolean;
  /** Maps an error of a lost connection or a failed commit onto what callers get (ServiceUnavailableError). */
  unavailable(err: unknown): Error;
}

/** The writes of one event-loop turn (at most {@link GroupCommitOptions.maxWrites}), committed together. */
interface Batch {
  readonly done: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
  /** Writes queued into it. */
  size: number;
  /** Its COMMIT is queued: later writes open another batch. */
  sealed: boolean;
  /** Its BEGIN ran on the writer's connection. */
  begun: boolean;
  /** The writes run so far, replayed when a statement fails inside the transaction. */
  readonly ran: { sql: string; params: unknown[] }[];
  /** Why it was discarded. */
  failed?: Error;
  /** An earlier batch was discarded while this one was pending: its flush fails too. */
  tainted?: Error;
  settled: boolean;
  /** When it was committed or discarded (Date.now()). */
  settledAt?: number;
}

/** A statement waiting for the writer: a write of `batch`, or a read. */
interface Statement {
  readonly sql: string;
  readonly params: unknown[];
  readonly batch: Batch | undefined;
  readonly queuedAt: number;
  readonly resolve: (result: pg.QueryResult) => void;
  readonly reject: (err: unknown) => void;
}

type Item = Statement | { readonly commit: Batch };

/** pg's per-statement `query_timeout` for the writer's statements: none in effect ({@link GroupCommit.query} bounds them). */
const UNBOUNDED_MS = 2 ** 31 - 1;

/** A statement's timer firing this much after it was due means the event loop was blocked meanwhile. */
const STALL_MS = 100;

/**
 * Group commit on PostgreSQL: writes that do not need to be durable on their own share one transaction
 * per event-loop turn on one connection of the pool (the writer), committed once — one commit, one WAL
 * flush for a turn's writes instead of one per statement. A write resolves once it ran inside the open
 * transaction (its result is known, it is not committed yet); {@link flush} resolves once every write
 * queued before the call is committed. Reads that must see those writes ({@link read}) run on the
 * writer, after them, while it has anything queued or open, and on the pool otherwise.
 *
 * One statement of the batch that fails for itself (a constraint, bad input) does not take the others
 * down: the transaction is rolled back and the batch's earlier writes replayed, and only that statement's
 * caller gets the error — as with SQLite's statement-level rollback. A lost connection or a failed commit
 * discards the batch: the listeners of {@link onDiscard} are told (synchronously, before any flush waiting
 * for it rejects), its remaining writes and its flush answer 503, and so do the flushes of batches
 * queued behind it. Statements wait in the queue at most `timeoutMs`; when no connection can be had,
 * everything queued answers 503 at once, so an outage never holds a growing queue.
 */
export class GroupCommit {
  private readonly queue: Item[] = [];
  /** The batch writes join now (not sealed). */
  private open: Batch | null = null;
  /** The newest batch: {@link flush} answers its end. */
  private last: Batch | null = null;
  /** Batches not committed or discarded yet, in order. */
  private readonly pending = new Set<Batch>();
  /** The batch whose transaction is open on the writer's connection. */
  private inTransaction: Batch | null = null;
  private client: pg.PoolClient | null = null;
  private broken: Error | undefined;
  private running = false;
  private readonly discardListeners = new Set<() => void>();
  private readonly onClientError = (err: Error): void => {
    this.broken ??= err;
  };

  constructor(private readonly options: GroupCommitOptions) {}

  /** Whether writes are queued, running or uncommitted: reads that must see them go through the writer. */
  get busy(): boolean {
    return this.running || this.queue.length > 0 || this.inTransaction !== null || this.open !== null;
  }

  /** Runs a writing statement in the current turn's batch; resolves with its result once it ran (not committed). */
  write(sql: string, params: unknown[]): Promise<pg.QueryResult> {
    const batch = this.open ?? this.openBatch();
    const result = this.enqueue(sql, params, batch);
    if (++batch.size >= this.options.maxWrites) this.seal(batch);
    return result;
  }

  /** Runs a reading statement after the writes queued before it, seeing them (inside the open transaction, if any). */
  read(sql: string, params: unknown[]): Promise<pg.QueryResult> {
    return this.enqueue(sql, params, undefined);
  }

  /**
   * Resolves when every write queued before the call is committed; rejects when its batch (or an earlier
   * pending one) was discarded. Between batches it answers how the last one ended (a write resolved just
   * before its batch failed must not be answered as durable), for at most `timeoutMs` after that failure:
   * a caller that wrote nothing since (an instance creation long after a time-out) is not failed for it.
   */
  flush(): Promise<void> {
    const last = this.last;
    if (!last || (last.settledAt !== undefined && Date.now() - last.settledAt > this.options.timeoutMs)) return Promise.resolve();
    return last.done;
  }

  /** Registers `listener`, told whenever a batch whose writes had run is discarded instead of committed. */
  onDiscard(listener: () => void): void {
    this.discardListeners.add(listener);
  }

  /** Commits what is queued and waits for it (closing the storage); a failure was told to the flush callers already. */
  async close(): Promise<void> {
    if (this.open) this.seal(this.open);
    await this.flush().catch(() => undefined);
  }

  private openBatch(): Batch {
    const { promise: done, resolve, reject } = Promise.withResolvers<void>();
    // A failed batch is reported to whoever awaits flush(); nobody awaiting it is not an error.
    done.catch(() => undefined);
    const batch: Batch = { done, resolve, reject, size: 0, sealed: false, begun: false, ran: [], settled: false };
    this.open = batch;
    this.last = batch;
    this.pending.add(batch);
    setImmediate(() => this.seal(batch));
    return batch;
  }

  private seal(batch: Batch): void {
    if (batch.sealed) return;
    batch.sealed = true;
    if (this.open === batch) this.open = null;
    this.queue.push({ commit: batch });
    this.pump();
  }

  private enqueue(sql: string, params: unknown[], batch: Batch | undefined): Promise<pg.QueryResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ sql, params, batch, queuedAt: Date.now(), resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    if (this.running) return;
    this.running = true;
    void this.drain();
  }

  /** The writer: runs the queue in order, one statement at a time on its connection. */
  private async drain(): Promise<void> {
    try {
      for (let item = this.queue.shift(); item; item = this.queue.shift()) {
        if ('commit' in item) await this.commit(item.commit);
        else await this.execute(item);
        if (!this.inTransaction && this.options.othersWaiting()) this.dropClient();
      }
    } finally {
      this.running = false;
      // The connection goes back to the pool when nothing is open on it; a batch still open keeps it until its COMMIT.
      if (!this.inTransaction) this.dropClient();
      if (this.queue.length) this.pump();
    }
  }

  private async execute(statement: Statement): Promise<void> {
    const { batch } = statement;
    if (batch?.failed) return statement.reject(batch.failed);
    if (Date.now() - statement.queuedAt > this.options.timeoutMs) {
      return statement.reject(new ServiceUnavailableError('postgres storage unavailable: the write queue did not get to the statement in time'));
    }
    let client: pg.PoolClient;
    try {
      client = await this.connection();
    } catch (err) {
      return this.failQueued(statement, err);
    }
    try {
      if (batch && !batch.begun) {
        await this.query(client, 'BEGIN');
        batch.begun = true;
        this.inTransaction = batch;
      }
      const result = await this.query(client, prepared(statement.sql, statement.params));
      batch?.ran.push({ sql: statement.sql, params: statement.params });
      statement.resolve(result);
    } catch (err) {
      if (this.broken || isTransient(err)) {
        this.broken ??= err as Error;
        if (this.inTransaction) this.discard(this.inTransaction, err);
        this.dropClient();
      } else if (this.inTransaction) {
        await this.replay(this.inTransaction);
      }
      statement.reject(err);
    }
  }

  /** A statement failed inside the batch's transaction (which PostgreSQL then aborted): rolls back and runs the batch's writes again. */
  private async replay(batch: Batch): Promise<void> {
    const client = this.client!;
    try {
      await this.query(client, 'ROLLBACK');
      await this.query(client, 'BEGIN');
      for (const write of batch.ran) await this.query(client, prepared(write.sql, write.params));
    } catch (err) {
      this.discard(batch, err);
      if (this.broken || isTransient(err)) this.dropClient();
    }
  }

  private async commit(batch: Batch): Promise<void> {
    if (batch.failed || !batch.begun) return this.settle(batch);
    try {
      const result = await this.query(this.client!, 'COMMIT');
      // COMMIT of a transaction PostgreSQL aborted answers ROLLBACK: not committed.
      if (result.command !== 'COMMIT') throw new Error('postgres rolled the batch back');
      this.inTransaction = null;
      this.options.committed();
      this.settle(batch);
    } catch (err) {
      this.broken ??= err as Error;
      this.discard(batch, err);
      this.dropClient();
    }
  }

  /** Discards `batch` (told to the listeners), fails its flush and those of the batches pending behind it. */
  private discard(batch: Batch, err: unknown): void {
    if (batch.failed) return;
    const error = this.options.unavailable(err);
    batch.failed = error;
    if (this.open === batch) this.open = null;
    if (this.inTransaction === batch) {
      this.inTransaction = null;
      // The transaction is aborted or its connection gone: the client is not reused with it open.
      this.broken ??= error;
    }
    if (batch.begun) for (const listener of this.discardListeners) listener();
    let behind = false;
    for (const other of this.pending) {
      if (behind) other.tainted ??= error;
      behind ||= other === batch;
    }
    this.settle(batch);
  }

  private settle(batch: Batch): void {
    if (batch.settled) return;
    batch.settled = true;
    batch.settledAt = Date.now();
    this.pending.delete(batch);
    const failure = batch.failed ?? batch.tainted;
    if (failure) batch.reject(failure);
    else batch.resolve();
  }

  /** No connection: every statement queued answers 503 now, and every batch queued is discarded. */
  private failQueued(first: Statement, err: unknown): void {
    const error = this.options.unavailable(err);
    first.reject(error);
    if (first.batch) this.discard(first.batch, error);
    for (const item of this.queue.splice(0)) {
      if ('commit' in item) this.discard(item.commit, error);
      else {
        item.reject(error);
        if (item.batch) this.discard(item.batch, error);
      }
    }
  }

  /**
   * One statement on the writer's connection, its answer awaited at most `timeoutMs`. Not pg's own
   * `query_timeout`: its timer runs in the timers phase of the event loop, before the poll phase that
   * reads the answer, so after the loop was blocked for longer than the bound (a synchronous key
   * generation on a loaded machine) it fails a statement whose answer came long ago — and here that
   * discards a whole batch. This bound starts over once when its timer fired late (the loop was
   * blocked, and whatever carries the answer in this process with it), and looks once more after the
   * next poll phase (`setImmediate`) before it gives up; the connection is then closed (its answer may
   * still come).
   */
  private query(client: pg.PoolClient, config: string | pg.QueryConfig): Promise<pg.QueryResult> {
    const running = client.query({ ...(typeof config === 'string' ? { text: config } : config), query_timeout: UNBOUNDED_MS } as pg.QueryConfig);
    let timer: NodeJS.Timeout | undefined;
    const { timeoutMs } = this.options;
    const late = new Promise<never>((_, reject) => {
      let due = Date.now() + timeoutMs;
      let stalls = 0;
      const fire = () => {
        // Fired late: the loop was blocked (and with it, whatever carries the answer in this process): once more.
        if (Date.now() - due > STALL_MS && stalls++ === 0) {
          due = Date.now() + timeoutMs;
          timer = setTimeout(fire, timeoutMs);
          return;
        }
        setImmediate(() => reject(new Error('Query read timeout')));
      };
      timer = setTimeout(fire, timeoutMs);
    });
    late.catch(() => undefined);
    running.catch(() => undefined);
    return Promise.race([running, late]).finally(() => clearTimeout(timer));
  }

  private async connection(): Promise<pg.PoolClient> {
    if (this.client) return this.client;
    const client = await this.options.connect();
    this.broken = undefined;
    client.on('error', this.onClientError);
    this.client = client;
    return client;
  }

  /** Gives the connection back to the pool; one that broke (or was left mid-transaction) is closed, not pooled. */
  private dropClient(): void {
    const client = this.client;
    if (!client) return;
    this.client = null;
    client.removeListener('error', this.onClientError);
    client.release(this.broken);
  }
}
