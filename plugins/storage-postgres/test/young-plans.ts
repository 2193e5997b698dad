import type pg from 'pg';

/**
 * A statement as the pool runs it: named (prepared once per connection), with the arguments of one call;
 * answers its rows.
 */
export type Call = (client: pg.Client) => Promise<unknown[]>;

/** Heap tuples of `table` (schema `schema`) fetched so far by this session's transaction (its pending statistics: no flush to wait for). */
async function fetched(client: pg.Client, schema: string, table: string): Promise<number> {
  const row = (await client.query<{ n: string }>(
    'SELECT coalesce(idx_tup_fetch, 0) + seq_tup_read AS n FROM pg_stat_xact_user_tables WHERE schemaname = $1 AND relname = $2', [schema, table],
  )).rows[0];
  return Number(row!.n);
}

/**
 * A statement's generic plan is made once per connection and kept while the table grows (DML does not
 * invalidate it; only an ANALYZE does, which autovacuum runs late on a young table). This makes the plans
 * of `calls` on `table` while it holds a little (`fill(1, 50)`; its autovacuum off, so nothing analyzes it),
 * each call rolled back, then fills the table up to `rows`.
 */
export async function planYoungThenGrow(client: pg.Client, table: string, fill: (from: number, to: number) => Promise<unknown>,
  rows: number, calls: readonly Call[]): Promise<void> {
  await client.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
  await fill(1, 50);
  await client.query('SET plan_cache_mode = force_generic_plan');
  for (const call of calls) await inRolledBack(client, () => call(client));
  await fill(51, rows);
}

/**
 * Runs `call` in a transaction, rolled back (every measure starts from the same table), with `check` on
 * its rows before the rollback; answers the rows of `table` (schema `schema`) it fetched.
 */
export async function rowsFetched(client: pg.Client, schema: string, table: string, call: Call,
  check: (rows: unknown[]) => Promise<void> | void): Promise<number> {
  return inRolledBack(client, async () => {
    const before = await fetched(client, schema, table);
    const rows = await call(client);
    const read = (await fetched(client, schema, table)) - before;
    await check(rows);
    return read;
  });
}

async function inRolledBack<T>(client: pg.Client, work: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    return await work();
  } finally {
    await client.query('ROLLBACK');
  }
}

/** A call of the prepared statement `name` (`text`) with `values`. */
export function prepared(name: string, text: string, values: unknown[]): Call {
  return async (client) => (await client.query({ name, text, values })).rows;
}

/** `count(*)` of `from` (a table and its conditions, as after FROM) on `client`. */
export async function countOf(client: pg.Client, from: string): Promise<number> {
  return (await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${from}`)).rows[0]!.n;
}
