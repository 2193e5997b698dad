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
