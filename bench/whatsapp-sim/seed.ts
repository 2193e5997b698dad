/**
 * Seeding a stopped bench node's storage with linked WhatsApp sessions, through Parley's own storage
 * API: the simulator issues each account a linked companion (`POST /accounts/{n}/companions`: Baileys
 * creds and keys as a QR link and first login leave them, the device recorded server-side), and the
 * bench writes that state as the WhatsApp channel itself keeps it — `loadStorageAuthState` of
 * `@parley/channel-baileys` over the SQLite back end's `authState` repository — for an instance created
 * through `POST /admin/instances`. Instance records are switched to "wants a connection" through the
 * same back end's `instances` repository, so the next start restores them.
 */
import { join } from 'node:path';
import { decodeStored } from '@parley/core';
import { loadStorageAuthState } from '@parley/channel-baileys';
import { SqliteStorage } from '@parley/storage-sqlite';
import { pool } from './fleet.js';
import type { SimProcess } from './processes.js';

/** The bench node's storage, opened while no node runs on it (the file the plugin uses by default). */
async function openStorage(dataDir: string): Promise<SqliteStorage> {
  const storage = new SqliteStorage({ file: join(dataDir, 'parley.db'), integrityCheck: false });
  await storage.init();
  return storage;
}

/** Issues a companion of `number` on the simulator and answers its Baileys state (Buffers revived). */
async function issue(sim: SimProcess, number: string, preKeys: number): Promise<{ creds: object; keys: object }> {
  const res = await fetch(`${sim.controlUrl}/accounts/${number}/companions`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ preKeys, announce: false }),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`simulator: issuing a companion of ${number}: ${res.status} ${text}`);
  // The simulator writes Buffers as { type: 'Buffer', data: base64 }, the form Parley's stored codec reads.
  return decodeStored(text);
}

/**
 * For each instance id, its account's companion issued and stored as the instance's auth state
 * (`concurrency` at once); answers the seconds it took.
 */
export async function seedIssuedSessions(dataDir: string, sim: SimProcess, sessions: Array<{ id: string; number: string }>, preKeys: number, concurrency = 4): Promise<number> {
  const started = Date.now();
  const storage = await openStorage(dataDir);
  try {
    await pool(sessions, concurrency, async ({ id, number }) => {
      const issued = await issue(sim, number, preKeys);
      const auth = await loadStorageAuthState(storage.authState, id, 16);
      if (auth.restored) throw new Error(`instance ${id} already has a session`);
      Object.assign(auth.state.creds, issued.creds);
      await auth.state.keys.set(issued.keys as Parameters<typeof auth.state.keys.set>[0]);
      await auth.saveCreds();
    });
  } finally {
    await storage.close();
  }
  return (Date.now() - started) / 1000;
}

/** Marks which instances the next start restores (`wantsConnection`), all others not; none is connected now. */
export async function wantConnections(dataDir: string, ids: string[], wanted: (index: number) => boolean): Promise<void> {
  const storage = await openStorage(dataDir);
  try {
    await pool(ids, 16, (id, index) => storage.instances.update(id, { wantsConnection: wanted(index), phoneConnected: false }));
  } finally {
    await storage.close();
  }
}
