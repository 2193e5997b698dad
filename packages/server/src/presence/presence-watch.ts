import type { StateRepository } from '@parley/core';
import { presenceRecords, type ServerPresenceRecord } from './presence-record.js';

/** A server's presence record as read, with its id. */
export interface ServerSighting {
  id: string;
  record: ServerPresenceRecord;
}

/** What watching a store's presence records found. */
export interface PresenceVerdict {
  /** Servers whose record changed while watched (or appeared): they run. */
  running: ServerSighting[];
  /** Records that did not change for two heartbeats: servers that died without clearing them. */
  stale: ServerSighting[];
}

/** How long {@link watchServers} watches records stating `heartbeatMs`: two heartbeats and a half (a late write is not a death). */
function watchWindowMs(heartbeatMs: number): number {
  return heartbeatMs * 2.5;
}

/** How {@link watchServers} watches. */
export interface WatchOptions {
  /** Waits between two reads (a timer; tests pass their own). */
  sleep(ms: number): Promise<void>;
  /** Told what is watched, and for how long, before the watch starts. */
  watching?(records: ServerSighting[], windowMs: number): void;
  /** A record left out (the watching server's own). */
  ignore?: string;
  /** Ends the watch at the first running server (a copy, refused then) instead of deciding every record. */
  untilRunning?: boolean;
}

/**
 * Which servers run on a store, from their presence records ({@link ServerPresence}). No record: none,
 * at once. Otherwise the records are read again every quarter heartbeat for {@link watchWindowMs} of
 * the longest heartbeat they state: a record that changes, or a new one, is a running server; one
 * deleted meanwhile, a server that stopped; one unchanged throughout, a server that died without
 * clearing it. Only the records' own changes count, never a clock of another host. The watch ends
 * early once every record first read is decided (or, `untilRunning`, at the first running server).
 */
export async function watchServers(state: StateRepository, options: WatchOptions): Promise<PresenceVerdict> {
  const read = async () => new Map([...await presenceRecords(state)].filter(([id]) => id !== options.ignore));
  const first = await read();
  if (first.size === 0) return { running: [], stale: [] };
  const heartbeatMs = Math.max(...[...first.values()].map((record) => record.heartbeatMs));
  const windowMs = watchWindowMs(heartbeatMs);
  const pollMs = heartbeatMs / 4;
  options.watching?.([...first].map(([id, record]) => ({ id, record })), windowMs);
  const running = new Map<string, ServerPresenceRecord>();
  let latest = first;
  for (let waited = 0; waited < windowMs; waited += pollMs) {
    await options.sleep(pollMs);
    latest = await read();
    for (const [id, record] of latest) {
      const before = first.get(id);
      if (!before || before.beats !== record.beats || before.heartbeatAt !== record.heartbeatAt) running.set(id, record);
    }
    if (options.untilRunning && running.size > 0) break;
    if ([...first.keys()].every((id) => running.has(id) || !latest.has(id))) break;
  }
  const sightings = (entries: Iterable<[string, ServerPresenceRecord]>) => [...entries].map(([id, record]) => ({ id, record }));
  return { running: sightings(running), stale: sightings([...first].filter(([id]) => latest.has(id) && !running.has(id))) };
}

/** One server as an operator finds it: `host h, pid p (http://…), cluster node n, Parley v, started …`. */
export function describeServer({ record }: ServerSighting): string {
  const started = Number.isFinite(record.startedAt) ? new Date(record.startedAt).toISOString() : 'at an unknown time';
  return `host ${record.host}, pid ${record.pid}${record.url ? ` (${record.url})` : ''}${record.node ? `, cluster node ${record.node}` : ''}, `
    + `Parley ${record.version}, started ${started}`;
}
