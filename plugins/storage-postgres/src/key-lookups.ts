import type { Queryable } from './queryable.js';

/** The tables {@link KeyLookups} reads by primary key (instance, id); their numbers are the `kind` of the statement. */
export const LOOKUP_KINDS = { message: 0, chat: 1, contact: 2 } as const;
export type LookupKind = keyof typeof LOOKUP_KINDS;

/** A row found by {@link KeyLookups.get}: the stored document as text (a message's record, a chat's or contact's jsonb) and a message's status. */
export interface LookupRow extends Record<string, unknown> {
  doc: string;
  status: string | null;
}

/** Lookups of one statement at most (more wait for the next one, started at once). */
const MAX_LOOKUPS = 1000;

/**
 * Every lookup of the batch in one statement: row `n` of the unnested keys ($1 kinds, $2 instances, $3 ids)
 * gets the row of its table with that key, if any. Each key is a primary-key lookup (the lateral subquery
 * with LIMIT is not flattened into a join the planner could turn into a scan; the branch of another table
 * is skipped by its one-time filter on the kind).
 */
export const LOOKUP_SQL = `
  SELECT u.n, d.doc, d.status
  FROM unnest($1::int[], $2::text[], $3::text[]) WITH ORDINALITY AS u (kind, instance, id, n)
  CROSS JOIN LATERAL (
    SELECT record AS doc, status FROM messages AS m WHERE u.kind = ${LOOKUP_KINDS.message} AND m.instance = u.instance AND m.id = u.id
    UNION ALL
    SELECT chat::text, NULL FROM chats AS c WHERE u.kind = ${LOOKUP_KINDS.chat} AND c.instance = u.instance AND c.id = u.id
    UNION ALL
    SELECT contact::text, NULL FROM contacts AS k WHERE u.kind = ${LOOKUP_KINDS.contact} AND k.instance = u.instance AND k.id = u.id
    LIMIT 1
  ) AS d`;

interface Lookup {
  readonly kind: number;
  readonly instance: string;
  readonly id: string;
  readonly resolve: (row: LookupRow | undefined) => void;
  readonly reject: (err: unknown) => void;
}

/**
 * Reads of a message, chat or contact by key made in one event-loop turn, answered by one statement:
 * the store projector reads a received message, its chat and its contact together, and the instances'
 * event chains each do so in the same turn — on PostgreSQL each read alone is a round trip and a
 * statement for both processes. A lookup waits at most for the end of the turn it was made in
 * (`setImmediate`), then runs through `reads` (so it sees the writes made before it, as a read of its own
 * would); when the statement fails, every lookup of it rejects with its error.
 */
export class KeyLookups {
  private pending: Lookup[] = [];
  private scheduled = false;

  /**
   * @param reads - where the statement runs ({@link PgDatabase.reads}), asked at each statement.
   * @param immediate - each lookup is its own statement, started at once: under group commit, whose one
   *   connection runs statements in the order they were made, a read keeps its place among the writes.
   */
  constructor(private readonly reads: () => Queryable, private readonly immediate = false) {}

  /** The row of `kind` with key (instance, id), or undefined. */
  get(kind: LookupKind, instance: string, id: string): Promise<LookupRow | undefined> {
    return new Promise((resolve, reject) => {
      const lookup = { kind: LOOKUP_KINDS[kind], instance, id, resolve, reject };
      if (this.immediate) return void this.lookUp([lookup]);
      this.pending.push(lookup);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.run());
      }
    });
  }

  private run(): void {
    this.scheduled = false;
    while (this.pending.length > 0) void this.lookUp(this.pending.splice(0, MAX_LOOKUPS));
  }

  private async lookUp(batch: Lookup[]): Promise<void> {
    try {
      const rows = await this.reads().all<LookupRow & { n: number }>(LOOKUP_SQL,
        [batch.map((l) => l.kind), batch.map((l) => l.instance), batch.map((l) => l.id)]);
      const found = new Map(rows.map((row) => [row.n, row]));
      batch.forEach((lookup, i) => lookup.resolve(found.get(i + 1)));
    } catch (err) {
      for (const lookup of batch) lookup.reject(err);
    }
  }
}
