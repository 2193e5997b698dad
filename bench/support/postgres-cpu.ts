import pg from 'pg';
import { cpuMicrosOf } from './measure.js';

/** CPU µs by backend pid, as {@link backendCpuMicros} answers it when given no baseline. */
export type BackendCpu = Map<number, number>;

/**
 * The CPU of the PostgreSQL backends serving `database` (they run on this machine: /proc): without
 * `since`, each backend's total so far; with it, the CPU they used since that reading (a backend that
 * started since counts whole). A backend that ended in between is missed: the pool keeps its
 * connections open under load.
 */
export async function backendCpuMicros(database: string, since: BackendCpu): Promise<number>;
export async function backendCpuMicros(database: string): Promise<BackendCpu>;
export async function backendCpuMicros(database: string, since?: BackendCpu): Promise<BackendCpu | number> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
  await client.connect();
  let pids: number[];
  try {
    pids = (await client.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [database])).rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
  const now = new Map<number, number>();
  for (const pid of pids) {
    try {
      now.set(pid, cpuMicrosOf(pid));
    } catch {
      // Ended since the query.
    }
  }
  if (!since) return now;
  let used = 0;
  for (const [pid, micros] of now) used += micros - (since.get(pid) ?? 0);
  return used;
}
