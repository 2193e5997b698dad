import type { StateRepository } from '@parley/core';
import { PRESENCE_HEARTBEAT_MS, SERVER_PRESENCE_NAMESPACE, type ServerPresenceRecord } from '../app/server-presence.js';

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

/** Bounds on the heartbeat a record states, so a damaged one can neither hurry nor stall the watch. */
const HEARTBEAT_BOUNDS_MS = [100, 60_000] as const;

/** The presence records of a store, by id; a record without a numeric heartbeat is read with the default one. */
export async function presenceRecords(state: StateRepository): Promise<Map<string, ServerPresenceRecord>> {
  const records = new Map<string, ServerPresenceRecord>();
  for (const { id, value } of await state.list<Partial<ServerPresenceRecord>>(SERVER_PRESENCE_NAMESPACE)) {
    const heartbeatMs = typeof value?.heartbeatMs === 'number' ? value.heartbeatMs : PRESENCE_HEARTBEAT_MS;
    records.set(id, { ...value, heartbeatMs: Math.min(Math.max(heartbeatMs, HEARTBEAT_BOUNDS_MS[0]), HEARTBEAT_BOUNDS_MS[1]) } as ServerPresenceRecord);
  }
  return records;
}

/** How long {@link watchServers} watches records stating `heartbeatMs`: two heartbeats and a half (a late write is not a death). */
function watchWindowMs(heartbeatMs: number): number {
  return heartbeatMs * 2.5;
}

/**
 * Which servers run on a store, from their presence records ({@link ServerPresence}). No record: none,
 * at once. Otherwise the records are read again every quarter heartbeat for {@link watchWindowMs} of
 * the longest heartbeat they state: a record that changes, or a new one, is a running server (the
 * watch ends there); one deleted meanwhile, a server that stopped; one unchanged throughout, a server
 * that died without clearing it. Only the records' own changes count, never a clock of another host.
 * `sleep` waits (tests pass their own); `watching` is told before the watch starts.
 */
export async function watchServers(
  state: StateRepository, sleep: (ms: number) => Promise<void>, watching: (records: ServerSighting[], windowMs: number) => void,
): Promise<PresenceVerdict> {
  const first = await presenceRecords(state);
  if (first.size === 0) return { running: [], stale: [] };
  const heartbeatMs = Math.max(...[...first.values()].map((record) => record.heartbeatMs));
  const windowMs = watchWindowMs(heartbeatMs);
  const pollMs = heartbeatMs / 4;
  watching([...first].map(([id, record]) => ({ id, record })), windowMs);
  let latest = first;
  for (let waited = 0; waited < windowMs; waited += pollMs) {
    await sleep(pollMs);
    latest = await presenceRecords(state);
    const running = [...latest].filter(([id, record]) => {
      const before = first.get(id);
      return !before || before.beats !== record.beats || before.heartbeatAt !== record.heartbeatAt;
    });
    if (running.length > 0) return { running: running.map(([id, record]) => ({ id, record })), stale: [] };
    if (![...first.keys()].some((id) => latest.has(id))) break;
  }
  return { running: [], stale: [...first].filter(([id]) => latest.has(id)).map(([id, record]) => ({ id, record })) };
}

/** One server as an operator finds it: `host h, pid p (http://…), cluster node n, Parley v, started …`. */
export function describeServer({ record }: ServerSighting): string {
  const started = Number.isFinite(record.startedAt) ? new Date(record.startedAt).toISOString() : 'at an unknown time';
  return `host ${record.host}, pid ${record.pid}${record.url ? ` (${record.url})` : ''}${record.node ? `, cluster node ${record.node}` : ''}, `
    + `Parley ${record.version}, started ${started}`;
}
