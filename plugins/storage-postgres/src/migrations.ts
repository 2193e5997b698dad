import { CLUSTER_MIGRATION, SIGNAL_PAYLOADS_AGE_MIGRATION } from './cluster/cluster-schema.js';
import { MESSAGES_DELETE_MIGRATION } from './delete-schema.js';
import { COMPLETE_MANY_MIGRATION, ENQUEUE_MANY_MIGRATION } from './enqueue-schema.js';
import { STATUSES_MIGRATION } from './statuses-schema.js';
import type { Queryable } from './queryable.js';

/**
 * Schema migrations, applied in order; `parley_schema` records each one applied. Append new steps,
 * never edit a released one. Every text column that is compared or sorted uses the "C" collation:
 * ids and ULIDs then order byte by byte, as on the other back ends, whatever the database's locale,
 * and their indexes compare faster.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: the whole schema. Records are JSON text (encodeStored) beside the columns their lookups need;
  // chats and contacts are jsonb, so that an upsert merges its fields in one statement (`||`).
  `
  CREATE TABLE instances (
    seq bigserial PRIMARY KEY,
    id text COLLATE "C" NOT NULL UNIQUE,
    key text COLLATE "C" NOT NULL CONSTRAINT instances_key_unique UNIQUE,
    created_at bigint NOT NULL,
    record text NOT NULL
  );
  CREATE INDEX instances_by_age ON instances (created_at, seq);
  CREATE TABLE instance_claims (
    namespace text COLLATE "C" NOT NULL,
    value text COLLATE "C" NOT NULL,
    instance text COLLATE "C" NOT NULL,
    PRIMARY KEY (namespace, value)
  );
  CREATE INDEX instance_claims_by_instance ON instance_claims (instance);

  CREATE TABLE messages (
    seq bigserial PRIMARY KEY,
    instance text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    chat text COLLATE "C" NOT NULL,
    -- double precision: a record's messageTimestamp is text and may hold any number (beyond 2^63 too); pages order by its value.
    timestamp double precision NOT NULL,
    status text NOT NULL,
    record text NOT NULL,
    UNIQUE (instance, id)
  );
  -- A chat's page is a range of this index, newest first; the retention sweep reads the second one.
  CREATE INDEX messages_by_chat ON messages (instance, chat, timestamp DESC, seq DESC);
  CREATE INDEX messages_by_time ON messages (timestamp);
  -- Messages per chat, kept by triggers in the writing transaction: a page's total is one row, not a COUNT
  -- over the chat's history. Inserts and deletes are counted per statement (transition tables), so a
  -- statement that writes or deletes many messages (an import, an instance's clear, a chat's delete)
  -- changes each count row once, not once per message.
  CREATE TABLE chat_message_counts (
    instance text COLLATE "C" NOT NULL,
    chat text COLLATE "C" NOT NULL,
    n bigint NOT NULL,
    PRIMARY KEY (instance, chat)
  );
  CREATE FUNCTION messages_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO chat_message_counts (instance, chat, n) SELECT instance, chat, count(*) FROM added GROUP BY 1, 2 ORDER BY 1, 2
      ON CONFLICT (instance, chat) DO UPDATE SET n = chat_message_counts.n + excluded.n;
    RETURN NULL;
  END $$;
  CREATE FUNCTION messages_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO chat_message_counts (instance, chat, n) SELECT instance, chat, -count(*) FROM removed GROUP BY 1, 2 ORDER BY 1, 2
      ON CONFLICT (instance, chat) DO UPDATE SET n = chat_message_counts.n + excluded.n;
    RETURN NULL;
  END $$;
  CREATE FUNCTION message_moved() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE chat_message_counts SET n = n - 1 WHERE instance = OLD.instance AND chat = OLD.chat;
    INSERT INTO chat_message_counts (instance, chat, n) VALUES (NEW.instance, NEW.chat, 1)
      ON CONFLICT (instance, chat) DO UPDATE SET n = chat_message_counts.n + 1;
    RETURN NULL;
  END $$;
  CREATE TRIGGER messages_inserted AFTER INSERT ON messages REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION messages_inserted();
  CREATE TRIGGER messages_deleted AFTER DELETE ON messages REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION messages_deleted();
  -- A message moved to another chat (a replace under the same id): row-level with a condition, so a status
  -- change or a replace in place (every receipt) does not run it at all.
  CREATE TRIGGER message_moved AFTER UPDATE OF chat ON messages FOR EACH ROW
    WHEN (OLD.chat IS DISTINCT FROM NEW.chat) EXECUTE FUNCTION message_moved();

  CREATE TABLE chats (
    instance text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    -- double precision: a record's messageTimestamp is text and may hold any number (beyond 2^63 too); pages order by its value.
    timestamp double precision NOT NULL,
    chat jsonb NOT NULL,
    PRIMARY KEY (instance, id)
  );
  CREATE INDEX chats_by_activity ON chats (instance, timestamp DESC, id);
  CREATE TABLE contacts (
    instance text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    contact jsonb NOT NULL,
    PRIMARY KEY (instance, id)
  );
  CREATE TABLE media (
    instance text COLLATE "C" NOT NULL,
    message_id text COLLATE "C" NOT NULL,
    mimetype text NOT NULL,
    file_name text,
    data bytea NOT NULL,
    PRIMARY KEY (instance, message_id)
  );
  CREATE TABLE auth_state (
    instance text COLLATE "C" NOT NULL,
    category text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    value text NOT NULL,
    PRIMARY KEY (instance, category, id)
  );
  CREATE TABLE state (
    namespace text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    value text NOT NULL,
    PRIMARY KEY (namespace, id)
  );

  -- The delivery queue. A lane (instance, url) keeps enqueue order (seq); delivery_lanes holds each
  -- non-empty lane's head and when it can next be claimed, written in the transactions that change
  -- the lane, so a claim reads lane heads by time (SKIP LOCKED), never the backlog behind them.
  CREATE TABLE deliveries (
    seq bigserial PRIMARY KEY,
    id text COLLATE "C" NOT NULL UNIQUE,
    instance text COLLATE "C" NOT NULL,
    url text COLLATE "C" NOT NULL,
    format text NOT NULL,
    event_id text NOT NULL,
    event_type text NOT NULL,
    body text NOT NULL,
    created_at bigint NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at bigint NOT NULL,
    last_error text,
    last_status integer,
    lease_until bigint,
    dead_at bigint
  );
  CREATE INDEX deliveries_lanes ON deliveries (instance, url, seq) WHERE dead_at IS NULL;
  CREATE INDEX deliveries_dead ON deliveries (instance, dead_at, seq) WHERE dead_at IS NOT NULL;
  CREATE INDEX deliveries_dead_age ON deliveries (dead_at) WHERE dead_at IS NOT NULL;
  CREATE TABLE delivery_lanes (
    instance text COLLATE "C" NOT NULL,
    url text COLLATE "C" NOT NULL,
    head bigint NOT NULL,
    ready_at bigint NOT NULL,
    PRIMARY KEY (instance, url)
  );
  CREATE INDEX delivery_lanes_ready ON delivery_lanes (ready_at, head);
  CREATE TABLE delivery_stats (
    instance text COLLATE "C" PRIMARY KEY,
    total_sent bigint NOT NULL DEFAULT 0,
    total_failed bigint NOT NULL DEFAULT 0,
    response_time_sum double precision NOT NULL DEFAULT 0,
    responses bigint NOT NULL DEFAULT 0
  );

  -- The event log; ids are ULIDs, so the primary key orders by time and a purge is a range delete.
  CREATE TABLE events (
    id text COLLATE "C" PRIMARY KEY,
    instance text COLLATE "C" NOT NULL,
    type text NOT NULL,
    at bigint NOT NULL,
    event text NOT NULL
  );
  CREATE INDEX events_by_instance ON events (instance, id);

  CREATE TABLE idempotency_keys (
    scope text COLLATE "C" NOT NULL,
    key text COLLATE "C" NOT NULL,
    state text NOT NULL,
    fingerprint text NOT NULL,
    owner text NOT NULL,
    expires_at bigint NOT NULL,
    answer text,
    PRIMARY KEY (scope, key)
  );
  CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_at);

  -- The outbound send queue: a lane's head is its lowest (ord, seq); outbound_lanes and
  -- outbound_counts (the bound) are kept as delivery_lanes is.
  CREATE TABLE outbound (
    seq bigserial PRIMARY KEY,
    instance text COLLATE "C" NOT NULL,
    id text COLLATE "C" NOT NULL,
    lane text COLLATE "C" NOT NULL,
    ord bigint NOT NULL,
    due_at bigint NOT NULL,
    created_at bigint NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    last_error text,
    lease_until bigint,
    payload text NOT NULL,
    UNIQUE (instance, id)
  );
  CREATE INDEX outbound_lanes_order ON outbound (instance, lane, ord, seq);
  CREATE INDEX outbound_by_instance ON outbound (instance, due_at, seq);
  CREATE TABLE outbound_lanes (
    instance text COLLATE "C" NOT NULL,
    lane text COLLATE "C" NOT NULL,
    head bigint NOT NULL,
    ready_at bigint NOT NULL,
    PRIMARY KEY (instance, lane)
  );
  CREATE INDEX outbound_lanes_ready ON outbound_lanes (ready_at, head);
  CREATE TABLE outbound_counts (instance text COLLATE "C" PRIMARY KEY, n bigint NOT NULL);
  CREATE TABLE outbound_paused (instance text COLLATE "C" PRIMARY KEY);
  `,
  // 2: a send's enqueue as one server-side call. An instance's enqueues run one after another (the bound
  // and lane order follow the API's order), so each round trip of a client-side transaction was paid in
  // series; the function does the same steps in one. Lock order as every lane writer: the lane's head
  // row, then the instance's count row. Answers 'full', 'queued' or 'leased' (OutboundQueue.enqueue).
  `
  CREATE FUNCTION outbound_enqueue(p_instance text, p_id text, p_lane text, p_due bigint, p_created bigint, p_payload text,
    p_bound bigint, p_now bigint, p_lease_until bigint) RETURNS text LANGUAGE plpgsql AS $$
  DECLARE
    v_head bigint;
    v_n bigint;
    v_leased boolean;
  BEGIN
    INSERT INTO outbound_lanes (instance, lane, head, ready_at) VALUES (p_instance, p_lane, 0, 0)
      ON CONFLICT (instance, lane) DO UPDATE SET head = outbound_lanes.head RETURNING head INTO v_head;
    INSERT INTO outbound_counts (instance, n) VALUES (p_instance, 1)
      ON CONFLICT (instance) DO UPDATE SET n = outbound_counts.n + 1 WHERE outbound_counts.n < p_bound RETURNING n INTO v_n;
    IF v_n IS NULL OR EXISTS (SELECT 1 FROM outbound WHERE instance = p_instance AND id = p_id) THEN
      -- Full, or a duplicate id (stored once): nothing changes.
      IF v_n IS NOT NULL THEN UPDATE outbound_counts SET n = n - 1 WHERE instance = p_instance; END IF;
      IF v_head = 0 THEN DELETE FROM outbound_lanes WHERE instance = p_instance AND lane = p_lane; END IF;
      RETURN CASE WHEN v_n IS NULL THEN 'full' ELSE 'queued' END;
    END IF;
    v_leased := p_lease_until IS NOT NULL AND p_due <= p_now
      AND NOT EXISTS (SELECT 1 FROM outbound WHERE instance = p_instance AND lane = p_lane AND ord <= p_due)
      AND NOT EXISTS (SELECT 1 FROM outbound_paused WHERE instance = p_instance);
    INSERT INTO outbound (instance, id, lane, ord, due_at, created_at, payload, lease_until)
      VALUES (p_instance, p_id, p_lane, p_due, p_due, p_created, p_payload, CASE WHEN v_leased THEN p_lease_until END);
    UPDATE outbound_lanes AS l SET head = h.seq, ready_at = h.ready FROM (
      SELECT seq, coalesce(lease_until, due_at) AS ready FROM outbound WHERE instance = p_instance AND lane = p_lane ORDER BY ord, seq LIMIT 1
    ) AS h WHERE l.instance = p_instance AND l.lane = p_lane;
    RETURN CASE WHEN v_leased THEN 'leased' ELSE 'queued' END;
  END $$;
  `,
  // 3: the delivery queue's enqueue (events and deliveries, one transaction) as one server-side call: the
  // server enqueues an instance's events one after another, so the round trips of a client-side
  // transaction were paid in series. The same steps as the Lanes class: lock the lanes' head rows, insert
  // the deliveries (their seq taken under the lock), point each lane at its head.
  `
  CREATE FUNCTION delivery_enqueue(e_id text[], e_instance text[], e_type text[], e_at bigint[], e_event text[],
    d_id text[], d_instance text[], d_url text[], d_format text[], d_event_id text[], d_event_type text[], d_body text[], d_created bigint[])
    RETURNS void LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO events (id, instance, type, at, event) SELECT * FROM unnest(e_id, e_instance, e_type, e_at, e_event) ON CONFLICT (id) DO NOTHING;
    INSERT INTO delivery_lanes (instance, url, head, ready_at)
      SELECT DISTINCT k.instance, k.url, 0::bigint, 0::bigint FROM unnest(d_instance, d_url) AS k (instance, url) ORDER BY 1, 2
      ON CONFLICT (instance, url) DO UPDATE SET head = delivery_lanes.head;
    INSERT INTO deliveries (id, instance, url, format, event_id, event_type, body, created_at, next_attempt_at)
      SELECT n.id, n.instance, n.url, n.format, n.event_id, n.event_type, n.body, n.created_at, n.created_at
      FROM unnest(d_id, d_instance, d_url, d_format, d_event_id, d_event_type, d_body, d_created) WITH ORDINALITY
        AS n (id, instance, url, format, event_id, event_type, body, created_at, position)
      ORDER BY n.position ON CONFLICT (id) DO NOTHING;
    UPDATE delivery_lanes AS l SET head = h.seq, ready_at = h.ready
      FROM (SELECT DISTINCT instance, url FROM unnest(d_instance, d_url) AS k (instance, url)) AS k
      CROSS JOIN LATERAL (
        SELECT r.seq, GREATEST(r.next_attempt_at, coalesce(r.lease_until, 0)) AS ready FROM deliveries AS r
        WHERE r.instance = k.instance AND r.url = k.url AND r.dead_at IS NULL ORDER BY r.seq LIMIT 1
      ) AS h
      WHERE l.instance = k.instance AND l.url = k.url;
    -- A placeholder no live delivery replaced (every one was a duplicate): the lane is empty.
    DELETE FROM delivery_lanes AS l USING unnest(d_instance, d_url) AS k (instance, url)
      WHERE l.instance = k.instance AND l.url = k.url AND l.head = 0;
  END $$;
  `,
  // 4: cluster coordination and signals (cluster/cluster-schema.ts).
  CLUSTER_MIGRATION,
  // 5: the completion of a send as one server-side call (PgOutboundQueue.complete), the Lanes class's steps:
  // lock the lane's head row, delete the entry (and count it out), point the lane at its new head or drop it.
  // A client-side transaction held the instance's outbound_counts row — which every enqueue of the instance
  // takes — over its round trips; here it is held only until the commit. Each statement of a plpgsql
  // function takes a snapshot of its own, so the head is recomputed from every committed change.
  `
  CREATE FUNCTION outbound_complete(p_instance text, p_id text) RETURNS boolean LANGUAGE plpgsql AS $$
  DECLARE
    v_lane text;
  BEGIN
    SELECT lane INTO v_lane FROM outbound WHERE instance = p_instance AND id = p_id;
    IF v_lane IS NULL THEN RETURN false; END IF;
    INSERT INTO outbound_lanes (instance, lane, head, ready_at) VALUES (p_instance, v_lane, 0, 0)
      ON CONFLICT (instance, lane) DO UPDATE SET head = outbound_lanes.head;
    DELETE FROM outbound WHERE instance = p_instance AND id = p_id;
    IF FOUND THEN UPDATE outbound_counts SET n = n - 1 WHERE instance = p_instance; END IF;
    UPDATE outbound_lanes AS l SET head = h.seq, ready_at = h.ready FROM (
      SELECT seq, coalesce(lease_until, due_at) AS ready FROM outbound WHERE instance = p_instance AND lane = v_lane ORDER BY ord, seq LIMIT 1
    ) AS h WHERE l.instance = p_instance AND l.lane = v_lane;
    IF NOT FOUND THEN DELETE FROM outbound_lanes WHERE instance = p_instance AND lane = v_lane; END IF;
    RETURN true;
  END $$;
  `,
  // 6: a run of receipts applied message by message on the server (statuses-schema.ts).
  STATUSES_MIGRATION,
  // 7: a run of an instance's enqueues in one call (enqueue-schema.ts).
  ENQUEUE_MANY_MIGRATION,
  // 8: completions of an instance's sends together (enqueue-schema.ts).
  COMPLETE_MANY_MIGRATION,
  // 9: messages deleted by their keys, one by one on the server (delete-schema.ts).
  MESSAGES_DELETE_MIGRATION,
  // 10: stored signal payloads by age, for their sweep (cluster/cluster-schema.ts).
  SIGNAL_PAYLOADS_AGE_MIGRATION,
];

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * Brings `schema` to {@link SCHEMA_VERSION} in one transaction under an advisory lock keyed by the
 * schema's name: of two nodes starting at once, one migrates and the other waits, then finds nothing
 * to do (PostgreSQL's DDL is transactional, so a failed step leaves nothing half-made). Refuses a
 * schema written by a newer build rather than guessing. Answers the version.
 */
export async function migrate(tx: Queryable, schema: string): Promise<number> {
  // Taken before the schema exists: two nodes racing on CREATE SCHEMA IF NOT EXISTS can both try to create it.
  await tx.run("SELECT pg_advisory_xact_lock(hashtext('parley migrations ' || $1))", [schema]);
  await tx.run(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  await tx.run(`SET LOCAL search_path TO "${schema}"`);
  await tx.run('CREATE TABLE IF NOT EXISTS parley_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
  const current = (await tx.get<{ version: number | null }>('SELECT max(version) AS version FROM parley_schema'))?.version ?? 0;
  if (current > SCHEMA_VERSION) {
    throw new Error(`postgres schema ${schema} is at version ${current}, newer than this build's ${SCHEMA_VERSION}: upgrade Parley`);
  }
  for (let version = current; version < SCHEMA_VERSION; version++) {
    await tx.run(MIGRATIONS[version]!);
    await tx.run('INSERT INTO parley_schema (version) VALUES ($1)', [version + 1]);
  }
  return SCHEMA_VERSION;
}
