/**
 * Idle memory per restored session, at sizes a QR link each cannot reach in a bench's time: N+1
 * instances are created through `POST /admin/instances` on a first node; WhatsApp ones are then given
 * linked sessions the simulator issues (`seed.ts`, through Parley's own auth-state storage), sandbox ones
 * are linked through the sandbox's scan route. Two more starts of the node on that storage follow:
 * - base: only the primer (instance 0) wants a connection: it is restored and logs in; idle wait,
 *   memory after full GCs, and the process's CPU at that point;
 * - all: every instance wants a connection; the node restores them all (Parley's restorer: at most
 *   `restore.concurrency` at once, the rate given); time from listening to all connected, CPU, idle
 *   wait and memory after full GCs.
 * Per session = (all − base) ÷ N: two fresh processes that differ only in the N sessions restored.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { rssMiBOf } from '../support/measure.js';
import { linkSandbox, pool, simNumber } from './fleet.js';
import { ParleyNode, simCall, startSimProcess, type Memory, type SimProcess } from './processes.js';
import { seedIssuedSessions, wantConnections } from './seed.js';

export interface RestoredResult {
  channel: 'whatsapp' | 'sandbox';
  /** Sessions restored besides the primer. */
  sessions: number;
  base: Memory;
  idle: Memory;
  /** Seconds to issue and store the N+1 sessions (WhatsApp) or link them (sandbox) before the restarts. */
  setupSeconds: number;
  /** Seconds from the node listening to every instance connected. */
  restoreSeconds: number;
  /** Parley's CPU seconds for the N logins: the all-start's CPU at all connected minus the base start's. */
  loginCpuSeconds: number;
  /** 1-minute load average at the start of the all-start and once all were connected. */
  load: [number, number];
  simRssMiB: number;
}

export interface RestoredOptions {
  idleSeconds: number;
  /** WhatsApp restores started per second (Parley's default is 2). */
  perSecond: number;
  preKeys: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const load1 = () => Number(loadavg()[0]!.toFixed(1));

/**
 * Waits for the node's restore to finish, then polls the admin list until `count` instances are
 * connected (throws after `timeoutMs`); answers the node's CPU (µs) when the restore finished, or when
 * all were connected if that came later — so the polls, which cost the node CPU too, count only then.
 */
async function allConnected(node: ParleyNode, count: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  await node.restored();
  const cpu = node.cpuMicros();
  let connected = 0;
  for (let poll = 0; Date.now() < deadline; poll++) {
    connected = 0;
    let cursor: string | undefined;
    do {
      const page = await node.call<{ data: Array<{ phoneConnected: boolean }>; cursor?: string }>('GET', `/admin/instances?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      connected += page.data.filter((i) => i.phoneConnected).length;
      cursor = page.cursor;
    } while (cursor);
    if (connected >= count) return poll === 0 ? cpu : node.cpuMicros();
    await sleep(1000);
  }
  throw new Error(`${connected} of ${count} instances connected after ${timeoutMs} ms`);
}

/** The first node: N+1 instances created (and for the sandbox linked); answers their ids. */
async function createInstances(channel: RestoredResult['channel'], node: ParleyNode, sim: SimProcess, total: number): Promise<string[]> {
  return pool(Array.from({ length: total }, (_, i) => i), 8, async (i) => {
    if (channel === 'sandbox') {
      const { key } = await linkSandbox(node, simNumber(2, i));
      return (await node.call<{ data: { id: string } }>('GET', `/admin/instances/${key}`)).data.id;
    }
    await simCall(sim, 'POST', '/accounts', { number: simNumber(1, i), pushName: `Bench ${i}` });
    return (await node.call<{ data: { id: string } }>('POST', '/admin/instances', { channel: 'whatsapp' })).data.id;
  });
}

export async function restoredScenario(channel: RestoredResult['channel'], sessions: number, options: RestoredOptions): Promise<RestoredResult> {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-bench-restored-'));
  const sim = await startSimProcess();
  const start = () => ParleyNode.start(sim, { dataDir, restorePerSecond: options.perSecond });
  const timeoutMs = Math.max(300_000, sessions * 1_000);
  try {
    const setupStarted = Date.now();
    const first = await start();
    const ids = await createInstances(channel, first, sim, sessions + 1).finally(() => first.stop());
    if (channel === 'whatsapp') await seedIssuedSessions(dataDir, sim, ids.map((id, i) => ({ id, number: simNumber(1, i) })), options.preKeys);
    const setupSeconds = (Date.now() - setupStarted) / 1000;
    console.error(`  ${channel}: ${sessions + 1} sessions set up in ${setupSeconds.toFixed(0)} s`);

    await wantConnections(dataDir, ids, (i) => i === 0);
    const baseNode = await start();
    let base: Memory;
    let baseCpu: number;
    try {
      baseCpu = await allConnected(baseNode, 1, 120_000);
      await sleep(options.idleSeconds * 1000);
      base = await baseNode.memory();
    } finally {
      await baseNode.stop();
    }

    await wantConnections(dataDir, ids, () => true);
    const loadBefore = load1();
    const node = await start();
    try {
      const listening = Date.now();
      const cpu = await allConnected(node, sessions + 1, timeoutMs);
      const restoreSeconds = (Date.now() - listening) / 1000;
      const loginCpuSeconds = (cpu - baseCpu) / 1e6;
      const loadAfter = load1();
      console.error(`  ${channel}: ${sessions + 1} restored and connected in ${restoreSeconds.toFixed(1)} s, RSS ${node.rssMiB().toFixed(0)} MiB`);
      await sleep(options.idleSeconds * 1000);
      const idle = await node.memory();
      return { channel, sessions, base, idle, setupSeconds, restoreSeconds, loginCpuSeconds, load: [loadBefore, loadAfter], simRssMiB: rssMiBOf(sim.pid) };
    } finally {
      await node.stop();
    }
  } finally {
    await sim.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
