/**
 * The fair baseline of bench/rest-send (issue 26): a server that does exactly a send's storage work and
 * nothing else, written plainly — express 5, ajv validating the same body, better-sqlite3 with Parley's
 * pragmas (WAL, synchronous=NORMAL, wal_autocheckpoint 4000) and group commit (the writes of one
 * event-loop turn in one transaction, committed on the next turn), answering each send only after the
 * COMMIT that holds its rows.
 *
 * Per send it writes the rows Parley writes for one sandbox send to one of its own peers, counted by
 * instrumenting better-sqlite3 under this bench's load (bench/RESULTS.md: 19 rows of the same sizes):
 * the outbound queue's entry (insert, lease, delete) and its lane's head (2 upserts); the message on
 * both sides (2 inserts of a ~340 B record, 2 status updates) and its place in each chat's order (2
 * block updates); the receiver's chat (1 upsert); its unread tracking (2 state upserts, 1 delete);
 * and 4 event-log rows (the two message events of ~715 B, the two status events of ~300 B).
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import Database from 'better-sqlite3';
import express from 'express';

const SCHEMA = `
  CREATE TABLE outbound (seq INTEGER PRIMARY KEY AUTOINCREMENT, instance TEXT NOT NULL, id TEXT NOT NULL, lane TEXT NOT NULL,
    due_at INTEGER NOT NULL, lease_until INTEGER, payload TEXT NOT NULL, UNIQUE (instance, id));
  CREATE TABLE outbound_lanes (instance TEXT NOT NULL, lane TEXT NOT NULL, head INTEGER NOT NULL, ready_at INTEGER NOT NULL,
    PRIMARY KEY (instance, lane)) WITHOUT ROWID;
  CREATE TABLE messages (seq INTEGER PRIMARY KEY, instance TEXT NOT NULL, id TEXT NOT NULL, chat TEXT NOT NULL,
    timestamp INTEGER NOT NULL, status TEXT NOT NULL, record TEXT NOT NULL, UNIQUE (instance, id));
  CREATE INDEX messages_by_chat ON messages (instance, chat, timestamp DESC, seq DESC);
  CREATE TABLE message_blocks (instance TEXT NOT NULL, chat TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (instance, chat)) WITHOUT ROWID;
  CREATE TABLE chats (instance TEXT NOT NULL, id TEXT NOT NULL, timestamp INTEGER NOT NULL, chat TEXT NOT NULL, PRIMARY KEY (instance, id));
  CREATE TABLE state (namespace TEXT NOT NULL, id TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (namespace, id));
  CREATE TABLE events (id TEXT PRIMARY KEY, instance TEXT NOT NULL, type TEXT NOT NULL, at INTEGER NOT NULL, event TEXT NOT NULL) WITHOUT ROWID;
  CREATE INDEX events_by_instance ON events (instance, id);
`;

/** The body of `POST /{key}/message/text`, as Parley's schema states it. */
const BODY_SCHEMA = {
  type: 'object',
  properties: {
    to: { type: 'string', minLength: 1, maxLength: 256, pattern: '^[^\\s]+$' },
    text: { type: 'string', minLength: 1, maxLength: 65_536 },
    provider: { type: 'string', enum: ['whatsapp'] },
    delay: { type: 'integer', minimum: 0, maximum: 86_400_000 },
  },
  required: ['to', 'text'],
  additionalProperties: false,
} as const;

const pad = (length: number) => 'x'.repeat(length);

/** Starts the baseline on a free port in `dataDir`; answers the port. */
export async function startFairBaseline(dataDir: string): Promise<{ port: number; close(): Promise<void> }> {
  const db = new Database(join(dataDir, 'baseline.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('wal_autocheckpoint = 4000');
  db.exec(SCHEMA);
  const sql = {
    enqueue: db.prepare('INSERT INTO outbound (instance, id, lane, due_at, payload) VALUES (?, ?, ?, ?, ?) RETURNING seq'),
    lease: db.prepare('UPDATE outbound SET lease_until = ? WHERE seq = ?'),
    dequeue: db.prepare('DELETE FROM outbound WHERE seq = ?'),
    head: db.prepare('INSERT INTO outbound_lanes (instance, lane, head, ready_at) VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET head = excluded.head, ready_at = excluded.ready_at'),
    message: db.prepare('INSERT INTO messages (instance, id, chat, timestamp, status, record) VALUES (?, ?, ?, ?, ?, ?) RETURNING seq'),
    status: db.prepare('UPDATE messages SET status = ? WHERE seq = ?'),
    block: db.prepare('INSERT INTO message_blocks (instance, chat, n) VALUES (?, ?, 1) ON CONFLICT DO UPDATE SET n = n + 1'),
    chat: db.prepare('INSERT OR REPLACE INTO chats (instance, id, timestamp, chat) VALUES (?, ?, ?, ?)'),
    state: db.prepare('INSERT OR REPLACE INTO state (namespace, id, value) VALUES (?, ?, ?)'),
    unstate: db.prepare('DELETE FROM state WHERE namespace = ? AND id = ?'),
    event: db.prepare('INSERT INTO events (id, instance, type, at, event) VALUES (?, ?, ?, ?, ?)'),
  };
  // Event ids grow with time, as Parley's ULIDs do (the log's primary key is appended to, not scattered into).
  let events = 0;
  const eventId = () => `${Date.now().toString(36)}${(++events).toString(36).padStart(8, '0')}`;
  let batch: { done: Promise<void>; resolve(): void } | null = null;
  /** This turn's transaction (opened by its first write, committed on the next turn). */
  const committed = (): Promise<void> => {
    if (batch) return batch.done;
    db.exec('BEGIN IMMEDIATE');
    let resolve!: () => void;
    const done = new Promise<void>((r) => (resolve = r));
    batch = { done, resolve };
    setImmediate(() => {
      const ending = batch!;
      batch = null;
      db.exec('COMMIT');
      ending.resolve();
    });
    return done;
  };
  const send = (key: string, to: string, text: string): { id: string; done: Promise<void> } => {
    const done = committed();
    const id = randomUUID();
    const now = Date.now();
    const record = JSON.stringify({ key: { remoteJid: `${to}@s.whatsapp.net`, fromMe: true, id }, message: { extendedTextMessage: { text } }, pad: pad(200) });
    const queued = sql.enqueue.get(key, id, to, now, JSON.stringify({ to, text, pad: pad(250) })) as { seq: number };
    sql.head.run(key, to, queued.seq, now + 60_000);
    sql.lease.run(now + 60_000, queued.seq);
    const sent = sql.message.get(key, id, to, now, 'PENDING', record) as { seq: number };
    const received = sql.message.get(to, id, key, now, 'PENDING', record) as { seq: number };
    sql.block.run(key, to);
    sql.block.run(to, key);
    sql.chat.run(to, key, now, JSON.stringify({ id: key, unreadCount: 1, pad: pad(60) }));
    sql.state.run(`${to}:unread:${key}`, id, pad(98));
    sql.state.run(`${to}:unread:${key}`, `${id}:ack`, pad(98));
    sql.unstate.run(`${to}:unread:${key}`, `${id}:ack`);
    sql.event.run(eventId(), key, 'message', now, pad(715));
    sql.event.run(eventId(), to, 'message', now, pad(715));
    sql.status.run('SERVER_ACK', sent.seq);
    sql.status.run('DELIVERY_ACK', received.seq);
    sql.event.run(eventId(), key, 'message.status', now, pad(300));
    sql.event.run(eventId(), to, 'message.status', now, pad(300));
    sql.dequeue.run(queued.seq);
    sql.head.run(key, to, 0, now);
    return { id, done };
  };
  const validate = new Ajv({ allErrors: true }).compile(BODY_SCHEMA);
  const app = express();
  app.use(express.json());
  app.post('/:key/message/text', (req, res) => {
    if (!validate(req.body)) {
      res.status(400).json({ status: 400, error: validate.errors });
      return;
    }
    const body = req.body as { to: string; text: string };
    const { id, done } = send(req.params.key, body.to, body.text);
    void done.then(() => res.json({ status: 200, data: { key: { id }, status: 'SERVER_ACK' } }));
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return {
    port: (server.address() as { port: number }).port,
    close: () => new Promise<void>((resolve) => server.close(() => {
      db.close();
      resolve();
    })),
  };
}
