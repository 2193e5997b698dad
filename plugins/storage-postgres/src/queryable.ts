import type pg from 'pg';

/** A row as the repositories read it. */
export type Row = Record<string, unknown>;

/** What runs statements: the pool (each statement its own transaction) or one transaction's client. */
export interface Queryable {
  /** Every row of a statement. */
  all<T extends Row>(sql: string, params?: unknown[]): Promise<T[]>;
  /** The first row of a statement, or undefined. */
  get<T extends Row>(sql: string, params?: unknown[]): Promise<T | undefined>;
  /** Runs a statement; answers how many rows it changed. */
  run(sql: string, params?: unknown[]): Promise<number>;
}

/** The {@link Queryable} of a pool or a client; statements with parameters run as {@link prepared} ones. */
export function queryable(target: pg.Pool | pg.PoolClient): Queryable {
  return {
    all: async <T extends Row>(sql: string, params: unknown[] = []) => (await target.query<T>(prepared(sql, params))).rows,
    get: async <T extends Row>(sql: string, params: unknown[] = []) => (await target.query<T>(prepared(sql, params))).rows[0],
    run: async (sql: string, params: unknown[] = []) => (await target.query(prepared(sql, params))).rowCount ?? 0,
  };
}

/** How many distinct statement texts get a name; more (none are expected: the repositories' texts are fixed) run unnamed. */
const MAX_NAMED = 1000;
const names = new Map<string, string>();

/**
 * A statement with parameters as a named prepared statement: node-postgres parses it once per connection
 * (and PostgreSQL keeps its plan, re-planned after a schema change), then only binds and executes it —
 * without a name each call is parsed and planned again (most of a primary-key read's server time). A
 * statement without parameters keeps the simple protocol (it may hold several statements: migrations).
 */
export function prepared(text: string, values: unknown[]): pg.QueryConfig {
  if (values.length === 0) return { text };
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED) {
    name = `parley_${names.size}`;
    names.set(text, name);
  }
  return name === undefined ? { text, values } : { name, text, values };
}
