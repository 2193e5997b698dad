import type Database from 'better-sqlite3';

/**
 * Schema migrations, applied in order; `PRAGMA user_version` records how many ran. Append new steps,
 * never edit a released one.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: initial schema. Records are JSON (encodeStored) beside the columns their lookups need.
  // `seq INTEGER PRIMARY KEY` aliases the rowid and, unlike an implicit rowid, survives VACUUM: it is
  // the insertion order that listings and delivery lanes rely on.
  `
  CREATE TABLE instances (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    key TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    record TEXT NOT NULL
  );
  CREATE INDEX instances_by_age ON instances (created_at, seq);

  CREATE TABLE messages (
    seq INTEGER PRIMARY KEY,
    instance TEXT NOT NULL,
    id TEXT NOT NULL,
    chat TEXT NOT NULL,
    timestamp INTEGER NOT NULL,
    record TEXT NOT NULL,
    UNIQUE (instance, id)
  );
  CREATE INDEX messages_by_chat ON messages (instance, chat, timestamp DESC, seq DESC);

  CREATE TABLE chats (
    instance TEXT NOT NULL,
    id TEXT NOT NULL,
    timestamp INTEGER NOT NULL,
    chat TEXT NOT NULL,
    PRIMARY KEY (instance, id)
  ) WITHOUT ROWID;
  CREATE INDEX chats_by_activity ON chats (instance, timestamp DESC, id);

  CREATE TABLE contacts (
    instance TEXT NOT NULL,
    id TEXT NOT NULL,
    contact TEXT NOT NULL,
    PRIMARY KEY (instance, id)
  ) WITHOUT ROWID;

  CREATE TABLE media (
    instance TEXT NOT NULL,
    message_id TEXT NOT NULL,
    mimetype TEXT NOT NULL,
    file_name TEXT,
    data BLOB NOT NULL,
    PRIMARY KEY (instance, message_id)
  );

  CREATE TABLE auth_state (
    instance TEXT NOT NULL,
    category TEXT NOT NULL,
    id TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (instance, category, id)
  ) WITHOUT ROWID;

  CREATE TABLE state (
    namespace TEXT NOT NULL,
    id TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (namespace, id)
  ) WITHOUT ROWID;

  CREATE TABLE deliveries (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    instance TEXT NOT NULL,
    url TEXT NOT NULL,
    format TEXT NOT NULL,
    event_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    attempts INTEGER NOT NULL,
    next_attempt_at INTEGER NOT NULL,
    last_error TEXT,
    last_status INTEGER,
    lease_until INTEGER,
    dead_at INTEGER
  );
  -- Lane heads (MIN(seq) per instance and url) and pending counts read only this index. dead_at is
  -- always NULL here, but listing it makes the index covering: SQLite re-checks the column otherwise.
  CREATE INDEX deliveries_lanes ON deliveries (instance, url, seq, dead_at) WHERE dead_at IS NULL;
  CREATE INDEX deliveries_dead ON deliveries (instance, dead_at, seq) WHERE dead_at IS NOT NULL;
  CREATE INDEX deliveries_dead_age ON deliveries (dead_at) WHERE dead_at IS NOT NULL;

  CREATE TABLE delivery_stats (
    instance TEXT PRIMARY KEY,
    total_sent INTEGER NOT NULL DEFAULT 0,
    total_failed INTEGER NOT NULL DEFAULT 0,
    response_time_sum REAL NOT NULL DEFAULT 0,
    responses INTEGER NOT NULL DEFAULT 0
  ) WITHOUT ROWID;
  `,
  // 2: a message's status in its own column. Delivery receipts move it two or three times per
  // message; rewriting the record's JSON for each (json_set over the whole document) cost more than
  // the rest of the update. The column is authoritative; the status inside `record` is ignored.
  `
  ALTER TABLE messages ADD COLUMN status TEXT NOT NULL DEFAULT 'PENDING';
  UPDATE messages SET status = coalesce(json_extract(record, '$.status'), 'PENDING');
  `,
  // 3: values an instance holds exclusively (UniqueClaim, such as a sandbox number). The primary key
  // makes a claim a unique, indexed lookup; the index by instance releases an instance's claims.
  `
  CREATE TABLE instance_claims (
    namespace TEXT NOT NULL,
    value TEXT NOT NULL,
    instance TEXT NOT NULL,
    PRIMARY KEY (namespace, value)
  ) WITHOUT ROWID;
  CREATE INDEX instance_claims_by_instance ON instance_claims (instance);
  `,
  // 4: the event log the live event streams replay from. The id is the event's ULID, so the primary
  // key orders entries by time and a retention purge is a range delete on it; the second index pages
  // one instance's events.
  `
  CREATE TABLE events (
    id TEXT PRIMARY KEY,
    instance TEXT NOT NULL,
    type TEXT NOT NULL,
    at INTEGER NOT NULL,
    event TEXT NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX events_by_instance ON events (instance, id);
  `,
  // 5: idempotency keys of the REST API, by scope (an instance id, or 'admin') and key. `answer` is
  // the JSON answer once the request is done; the index by expiry lets the sweep delete old keys.
  `
  CREATE TABLE idempotency_keys (
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    state TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    owner TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    answer TEXT,
    PRIMARY KEY (scope, key)
  ) WITHOUT ROWID;
  CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_at);
  `,
  // 6: the outbound send queue (issue 16). `seq` is the enqueue order; a lane's head is its lowest
  // (ord, seq). `outbound_lanes` holds each non-empty lane's head and when it can next be claimed (its
  // lease end while leased, else its due time), kept in the same transactions as the rows: a claim
  // reads lane heads by that time, never the backlog behind them. `outbound_counts` keeps each
  // instance's size for the queue bound.
  `
  CREATE TABLE outbound (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    instance TEXT NOT NULL,
    id TEXT NOT NULL,
    lane TEXT NOT NULL,
    ord INTEGER NOT NULL,
    due_at INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT,
    lease_until INTEGER,
    payload TEXT NOT NULL,
    UNIQUE (instance, id)
  );
  CREATE INDEX outbound_lanes_order ON outbound (instance, lane, ord, seq);
  CREATE INDEX outbound_by_instance ON outbound (instance, due_at, seq);
  CREATE TABLE outbound_lanes (
    instance TEXT NOT NULL,
    lane TEXT NOT NULL,
    head INTEGER NOT NULL,
    ready_at INTEGER NOT NULL,
    PRIMARY KEY (instance, lane)
  ) WITHOUT ROWID;
  CREATE INDEX outbound_lanes_ready ON outbound_lanes (ready_at, head);
  CREATE TABLE outbound_counts (instance TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
  CREATE TABLE outbound_paused (instance TEXT PRIMARY KEY) WITHOUT ROWID;
  `,
  // 7: pages of a chat's messages without OFFSET over the chat or COUNT(*) (issue 26): each chat's
  // messages, oldest (timestamp, seq) first, cut into blocks of contiguous key ranges, each with its
  // lower-bound key, size and the rank of its first message, written with the messages (see
  // ChatOrder). Existing messages are cut into blocks of 256 here.
  `
  CREATE TABLE message_blocks (
    instance TEXT NOT NULL,
    chat TEXT NOT NULL,
    timestamp INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    start INTEGER NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (instance, chat, timestamp, seq)
  ) WITHOUT ROWID;
  CREATE INDEX message_blocks_by_start ON message_blocks (instance, chat, start);
  INSERT INTO message_blocks (instance, chat, timestamp, seq, start, n)
  SELECT instance, chat, timestamp, seq, rank, min(256, total - rank) FROM (
    SELECT instance, chat, timestamp, seq, row_number() OVER ordered - 1 AS rank, count(*) OVER (PARTITION BY instance, chat) AS total
    FROM messages WINDOW ordered AS (PARTITION BY instance, chat ORDER BY timestamp, seq)
  ) WHERE rank % 256 = 0;
  `,
  // 8: each instance's number of dead letters, the total of a dead-letter page, which was a COUNT(*)
  // over them per page (issue 26). Triggers keep it in the transaction of every write that kills,
  // revives, purges or clears a delivery, whichever statement does it; a count that reaches 0 goes.
  `
  CREATE TABLE dead_letter_counts (instance TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
  INSERT INTO dead_letter_counts (instance, n) SELECT instance, count(*) FROM deliveries WHERE dead_at IS NOT NULL GROUP BY instance;
  CREATE TRIGGER dead_letters_inserted AFTER INSERT ON deliveries WHEN new.dead_at IS NOT NULL BEGIN
    INSERT INTO dead_letter_counts (instance, n) VALUES (new.instance, 1) ON CONFLICT (instance) DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER dead_letters_deleted AFTER DELETE ON deliveries WHEN old.dead_at IS NOT NULL BEGIN
    UPDATE dead_letter_counts SET n = n - 1 WHERE instance = old.instance;
    DELETE FROM dead_letter_counts WHERE instance = old.instance AND n <= 0;
  END;
  CREATE TRIGGER dead_letters_updated AFTER UPDATE OF dead_at, instance ON deliveries
  WHEN (old.dead_at IS NULL) <> (new.dead_at IS NULL) OR (old.dead_at IS NOT NULL AND old.instance <> new.instance) BEGIN
    UPDATE dead_letter_counts SET n = n - 1 WHERE old.dead_at IS NOT NULL AND instance = old.instance;
    DELETE FROM dead_letter_counts WHERE old.dead_at IS NOT NULL AND instance = old.instance AND n <= 0;
    INSERT INTO dead_letter_counts (instance, n) SELECT new.instance, 1 WHERE new.dead_at IS NOT NULL
    ON CONFLICT (instance) DO UPDATE SET n = n + 1;
  END;
  `,
];

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings the database to {@link SCHEMA_VERSION} in one IMMEDIATE transaction (two processes starting
 * together migrate once). Refuses a database written by a newer build rather than guessing.
 */
export function migrate(db: Database.Database): void {
  db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current > SCHEMA_VERSION) {
      throw new Error(`sqlite database schema version ${current} is newer than this build's ${SCHEMA_VERSION}: upgrade Parley`);
    }
    for (let version = current; version < SCHEMA_VERSION; version++) db.exec(MIGRATIONS[version]!);
    if (current !== SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
