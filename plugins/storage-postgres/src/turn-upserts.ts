import { ServiceUnavailableError } from '@parley/core';
import type { Queryable } from './queryable.js';

/** A message row as `PgMessageRepository.upsert` writes it. */
export interface MessageUpsert {
  instance: string;
  id: string;
  chat: string;
  timestamp: number;
  status: string;
  record: string;
}

/** A chat or contact upsert: the new document (`created`, JSON), the given fields (`patch`, JSON) and the fields given as null (removed). */
export interface ResourceUpsert {
  instance: string;
  id: string;
  created: string;
  patch: string;
  removed: string[];
}

/** A plugin's state document as `PgStateRepository.put` writes it (`value` JSON), or (no value) its delete. */
export interface StateWrite {
  namespace: string;
  id: string;
  value?: string;
}

type Kind = 'message' | 'chat' | 'contact' | 'state';

/** Writes of one statement at most. */
const MAX_UPSERTS = 500;

/** The chat and contact upserts of a statement: as `PgResourceRepository`'s, one row per key, the given fields merged into a stored document under the row lock of ON CONFLICT. */
function resourceUpsert(name: string, table: string, column: string, from: number, sortColumn?: string): string {
  const merged = `(SELECT (t.${column} || u.patch) - ARRAY(SELECT jsonb_array_elements_text(u.removed)) AS doc FROM ${name}_u AS u WHERE u.instance = t.instance AND u.id = t.id)`;
  const sort = (doc: string) => `coalesce((${doc} ->> '${sortColumn}')::double precision, 0)`;
  return `${name}_u AS (SELECT * FROM unnest($${from}::text[], $${from + 1}::text[], $${from + 2}::jsonb[], $${from + 3}::jsonb[], $${from + 4}::jsonb[])
      AS u (instance, id, created, patch, removed)),
    ${name} AS (
      INSERT INTO ${table} AS t (instance, id, ${column}${sortColumn ? `, ${sortColumn}` : ''})
      SELECT instance, id, created${sortColumn ? `, ${sort('created')}` : ''} FROM ${name}_u
      ON CONFLICT (instance, id) DO UPDATE SET ${sortColumn
        ? `(${column}, ${sortColumn}) = (SELECT m.doc, ${sort('m.doc')} FROM ${merged} AS m)`
        : `${column} = (SELECT m.doc FROM ${merged} AS m)`}
      RETURNING t.instance, t.id, t.${column}::text AS doc
    )`;
}

/**
 * The upserts of a batch in one statement: messages ($1–$6, in the order given, each inserted or
 * replacing the row of its key as `PgMessageRepository.upsert` does), chats ($7–$11) and contacts
 * ($12–$16), each answered with its document as stored, and plugins' state documents ($17–$19: a null
 * value deletes), each answered with whether it wrote a row. No key is twice in a batch (a statement
 * cannot update a row twice; a put and a delete of one key would run in either order).
 */
const UPSERT_SQL = `
  WITH messages_u AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::double precision[], $5::text[], $6::text[]) WITH ORDINALITY
      AS u (instance, id, chat, timestamp, status, record, ord)),
    m AS (
      INSERT INTO messages (instance, id, chat, timestamp, status, record)
      SELECT instance, id, chat, timestamp, status, record FROM messages_u ORDER BY ord
      ON CONFLICT (instance, id) DO UPDATE SET chat = excluded.chat, timestamp = excluded.timestamp, status = excluded.status, record = excluded.record
    ),
    ${resourceUpsert('c', 'chats', 'chat', 7, 'timestamp')},
    ${resourceUpsert('k', 'contacts', 'contact', 12)},
    s_u AS (SELECT * FROM unnest($17::text[], $18::text[], $19::text[]) AS u (namespace, id, value)),
    s AS (
      INSERT INTO state (namespace, id, value) SELECT namespace, id, value FROM s_u WHERE value IS NOT NULL
      ON CONFLICT (namespace, id) DO UPDATE SET value = excluded.value RETURNING namespace, id
    ),
    d AS (DELETE FROM state USING s_u WHERE s_u.value IS NULL AND state.namespace = s_u.namespace AND state.id = s_u.id RETURNING state.namespace, state.id)
  SELECT 'chat' AS kind, instance, id, doc FROM c UNION ALL SELECT 'contact', instance, id, doc FROM k
  UNION ALL SELECT 'state', namespace, id, NULL FROM s UNION ALL SELECT 'state', namespace, id, NULL FROM d`;

interface Pending<T> {
  readonly row: T;
  readonly resolve: (doc: string | undefined) => void;
  readonly reject: (err: unknown) => void;
}

interface Batch {
  messages: Pending<MessageUpsert>[];
  chats: Pending<ResourceUpsert>[];
  contacts: Pending<ResourceUpsert>[];
  states: Pending<StateWrite>[];
  /** Its keys, `kind\0instance\0id`. */
  keys: Set<string>;
  size: number;
}

const newBatch = (): Batch => ({ messages: [], chats: [], contacts: [], states: [], keys: new Set(), size: 0 });

/**
 * Upserts of messages, chats, contacts and plugins' state documents made in one event-loop turn, written by
 * one statement through `writes`: the store projector writes a received message and its chat together, a
 * channel its state (the sandbox phone's unread tracking), and the instances' event chains each do so in the
 * same turn — on PostgreSQL each write alone is a round trip and a statement for both processes. A write
 * waits at most for the end of its turn (`setImmediate`). A key written twice in a turn goes into the next
 * batch (its own statement, run after the first), so that writes of one key land in the order they were
 * made. When the statement fails for its input (not an outage, which fails every write of it with its 503),
 * each of its writes runs again alone, so that a write that fails for itself fails only its own caller.
 */
export class TurnUpserts {
  private batches: Batch[] = [];

  /**
   * @param writes - where the statement runs ({@link PgDatabase.writes}), asked at each statement.
   * @param immediate - each write is its own statement, started at once: under group commit, whose one
   *   connection runs statements in the order they were made, a write keeps its place among the others.
   */
  constructor(private readonly writes: () => Queryable, private readonly immediate = false) {}

  message(row: MessageUpsert): Promise<void> {
    return this.add('message', row).then(() => undefined);
  }

  /** The chat or contact as stored after the upsert (JSON). */
  resource(kind: 'chat' | 'contact', row: ResourceUpsert): Promise<string> {
    return this.add(kind, row) as Promise<string>;
  }

  /** Puts a state document (`value` JSON) or deletes it (no value); answers whether a row was written or deleted. */
  state(row: StateWrite): Promise<boolean> {
    return this.add('state', row).then((found) => found !== undefined);
  }

  private add(kind: Kind, row: MessageUpsert | ResourceUpsert | StateWrite): Promise<string | undefined> {
    return new Promise((resolve, reject) => {
      if (this.immediate) {
        return void this.run([singleBatch(kind, { row, resolve, reject })]);
      }
      if (this.batches.length === 0) setImmediate(() => void this.run(this.batches.splice(0)));
      const key = `${kind}\u0000${'namespace' in row ? row.namespace : row.instance}\u0000${row.id}`;
      // The first batch after the last one that writes the key (batches run one after another), with room.
      let at = this.batches.findLastIndex((b) => b.keys.has(key)) + 1;
      while (at < this.batches.length && this.batches[at]!.size >= MAX_UPSERTS) at++;
      if (at === this.batches.length) this.batches.push(newBatch());
      const batch = this.batches[at]!;
      batch.keys.add(key);
      batch.size++;
      push(batch, kind, { row, resolve, reject });
    });
  }

  private async run(batches: Batch[]): Promise<void> {
    for (const batch of batches) {
      try {
        await this.write(batch);
      } catch (err) {
        if (err instanceof ServiceUnavailableError || batch.size === 1) reject(batch, err);
        else await this.alone(batch);
      }
    }
  }

  /** Writes the batch; resolves its writes, or throws the statement's error with none of them settled. */
  private async write(batch: Batch): Promise<void> {
    const { messages: m, chats: c, contacts: k, states: st } = batch;
    const resources = (list: Pending<ResourceUpsert>[]) => [list.map((p) => p.row.instance), list.map((p) => p.row.id),
      list.map((p) => p.row.created), list.map((p) => p.row.patch), list.map((p) => JSON.stringify(p.row.removed))];
    const rows = await this.writes().all<{ kind: string; instance: string; id: string; doc: string }>(UPSERT_SQL, [
      m.map((p) => p.row.instance), m.map((p) => p.row.id), m.map((p) => p.row.chat), m.map((p) => p.row.timestamp), m.map((p) => p.row.status), m.map((p) => p.row.record),
      ...resources(c), ...resources(k), st.map((p) => p.row.namespace), st.map((p) => p.row.id), st.map((p) => p.row.value ?? null),
    ]);
    const docs = new Map(rows.map((row) => [`${row.kind}\u0000${row.instance}\u0000${row.id}`, row.doc]));
    for (const p of m) p.resolve(undefined);
    for (const p of c) p.resolve(docs.get(`chat\u0000${p.row.instance}\u0000${p.row.id}`));
    for (const p of k) p.resolve(docs.get(`contact\u0000${p.row.instance}\u0000${p.row.id}`));
    // A row written or deleted answers its key (with no document): '' for found, undefined for none.
    for (const p of st) p.resolve(docs.has(`state\u0000${p.row.namespace}\u0000${p.row.id}`) ? '' : undefined);
  }

  /** Each write of the batch alone (a batch of one), together: their keys are distinct. */
  private async alone(batch: Batch): Promise<void> {
    const singles = (Object.entries(LISTS) as [Kind, (typeof LISTS)[Kind]][]).flatMap(([kind, list]) =>
      (batch[list] as Pending<unknown>[]).map((p) => singleBatch(kind, p)));
    await Promise.all(singles.map((single) => this.write(single).catch((err: unknown) => reject(single, err))));
  }
}

/** The list of a batch each kind's writes go in. */
const LISTS = { message: 'messages', chat: 'chats', contact: 'contacts', state: 'states' } as const;

function singleBatch(kind: Kind, pending: Pending<unknown>): Batch {
  const batch = newBatch();
  batch.size = 1;
  push(batch, kind, pending);
  return batch;
}

function push(batch: Batch, kind: Kind, pending: Pending<unknown>): void {
  (batch[LISTS[kind]] as Pending<unknown>[]).push(pending);
}

function reject(batch: Batch, err: unknown): void {
  for (const p of [...batch.messages, ...batch.chats, ...batch.contacts, ...batch.states]) p.reject(err);
}
