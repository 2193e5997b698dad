import type { StateRepository } from '@parley/core';

/**
 * The state namespace where every running server keeps a record of itself: server-wide, read by
 * `parley storage copy` to refuse a store a server holds, never copied.
 */
export const SERVER_PRESENCE_NAMESPACE = 'parley.servers';

/** How often a running server rewrites its record. */
export const PRESENCE_HEARTBEAT_MS = 5_000;

/** What a running server says of itself in {@link SERVER_PRESENCE_NAMESPACE}, under an id of its own. */
export interface ServerPresenceRecord {
  /** Host name and process id of the server. */
  host: string;
  pid: number;
  version: string;
  /** Where it listens, once it does. */
  url?: string;
  /** Its cluster node id, on a cluster. */
  node?: string;
  /** Unix milliseconds, by the server's clock. */
  startedAt: number;
  heartbeatAt: number;
  /** How often it rewrites the record: a reader that sees no change for longer takes it for stopped. */
  heartbeatMs: number;
  /** Records written so far: it changes at every heartbeat, whatever the clocks of the hosts say. */
  beats: number;
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

