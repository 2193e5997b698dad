/**
 * Migration 4: cluster coordination (ClusterStore), signals (StorageSignals) and shared rate-limit
 * counters (RateLimitCounter) in the storage's schema,
 * so that deployments on one database under different schemas never meet. Every time to live is an
 * expiry on the database's clock (`clock_timestamp()`), as a Redis PX time to live runs on Redis's:
 * every node compares against the one clock, so skew between the nodes' clocks never makes two of
 * them see a lease free. A row's expiry starts when its statement runs, after the node sent it, so a
 * node counting its lease from the send never believes it holds a lease longer than the database does.
 */
export const CLUSTER_MIGRATION = `
  -- Fencing tokens of every lease of every instance: one sequence, so tokens only grow (a crash skips values, never reuses them).
  CREATE SEQUENCE cluster_fence_seq;
  -- The node registry: a row is live until expires_at; a dead node's row stays (listed as dead) until it is pruned or leaves.
  CREATE TABLE cluster_nodes (
    id text COLLATE "C" PRIMARY KEY,
    incarnation text NOT NULL,
    info text NOT NULL,
    last_heartbeat bigint NOT NULL,
    expires_at timestamptz NOT NULL
  );
  -- One row per instance ever leased. token: the instance's current fencing token (kept when the lease ends, so
  -- fenced writes compare with it); node: who took that token; expires_at: the lease holds while in the future
  -- (NULL: released); held_by: the node whose set of held instances lists it (kept after that node died, for its orphans).
  CREATE TABLE cluster_leases (
    instance text COLLATE "C" PRIMARY KEY,
    token bigint NOT NULL,
    node text COLLATE "C",
    expires_at timestamptz,
    held_by text COLLATE "C"
  );
  CREATE INDEX cluster_leases_held ON cluster_leases (held_by) WHERE held_by IS NOT NULL;
  CREATE TABLE cluster_unowned (instance text COLLATE "C" PRIMARY KEY, offered_at timestamptz NOT NULL);
  CREATE INDEX cluster_unowned_by_age ON cluster_unowned (offered_at, instance);
  CREATE TABLE cluster_moves (instance text COLLATE "C" PRIMARY KEY, node text COLLATE "C" NOT NULL, expires_at timestamptz NOT NULL);
  CREATE TABLE cluster_claims (key text COLLATE "C" PRIMARY KEY, expires_at timestamptz NOT NULL);
  -- Signals too large for a NOTIFY payload: the notification carries the row's id (see PgSignals).
  CREATE TABLE signal_payloads (id bigserial PRIMARY KEY, at timestamptz NOT NULL DEFAULT clock_timestamp(), message text NOT NULL);
  -- Rate-limit counters every server shares: events of a key in its current window, until window_end (extended to the
  -- end of the block once the key goes over its limit).
  CREATE TABLE rate_limits (
    name text COLLATE "C" NOT NULL,
    key text COLLATE "C" NOT NULL,
    points integer NOT NULL,
    window_end timestamptz NOT NULL,
    PRIMARY KEY (name, key)
  );
  CREATE INDEX rate_limits_by_end ON rate_limits (window_end);

  -- Takes a free lease (none, released or expired) with a new token; NULL when held, or when a live move leaves
  -- the instance to another node and p_honour_move. The placeholder row gives a first lease a row to lock; the
  -- token is drawn in the UPDATE, and drawn again when a racing take changed the row first (READ COMMITTED re-checks
  -- the row and re-evaluates the UPDATE): so the later take of an instance always has the greater token, and of
  -- takes racing for a free lease exactly one succeeds.
  CREATE FUNCTION cluster_acquire(p_instance text, p_node text, p_ttl_ms double precision, p_honour_move boolean)
    RETURNS bigint LANGUAGE plpgsql AS $$
  DECLARE
    v_token bigint;
  BEGIN
    INSERT INTO cluster_leases (instance, token) VALUES (p_instance, 0) ON CONFLICT (instance) DO NOTHING;
    UPDATE cluster_leases SET token = nextval('cluster_fence_seq'), node = p_node, held_by = p_node,
        expires_at = clock_timestamp() + p_ttl_ms * interval '1 millisecond'
      WHERE instance = p_instance AND (expires_at IS NULL OR expires_at <= clock_timestamp())
        AND NOT (p_honour_move AND EXISTS (
          SELECT 1 FROM cluster_moves AS m WHERE m.instance = p_instance AND m.node <> p_node AND m.expires_at > clock_timestamp()))
      RETURNING token INTO v_token;
    IF v_token IS NULL THEN
      RETURN NULL;
    END IF;
    DELETE FROM cluster_unowned WHERE instance = p_instance;
    DELETE FROM cluster_moves WHERE instance = p_instance AND node = p_node;
    RETURN v_token;
  END $$;

  -- A fenced write's check, called in the write's own statement (cluster/fenced.ts): share-locks the instance's lease
  -- row at the token until the statement ends (a take-over's UPDATE waits for the write), or fails the statement.
  CREATE FUNCTION cluster_fence_check(p_instance text, p_token bigint) RETURNS boolean LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM 1 FROM cluster_leases WHERE instance = p_instance AND token = p_token FOR SHARE;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'parley: fenced off';
    END IF;
    RETURN true;
  END $$;
`;

/**
 * Migration 10: stored signal payloads by age. A large publish deletes the payloads older than a minute
 * (PgSignals); with no index on `at`, every such publish read every payload of the last minute.
 */
export const SIGNAL_PAYLOADS_AGE_MIGRATION = `
  CREATE INDEX signal_payloads_by_age ON signal_payloads (at);
`;
