/**
 * Idle memory per linked session: a fresh Parley process and simulator, one primer instance linked
 * first (what the first session loads lazily — libsignal, protobuf roots, SQLite statements — is not a
 * per-session cost), memory after full GCs, then N instances linked (at most `concurrency` at once),
 * an idle wait, and memory after full GCs again. The same for sandbox instances in another fresh Parley
 * process, so the two figures come from the same run.
 */
import { rssMiBOf } from '../support/measure.js';
import { linkSandbox, linkWhatsApp, pool, simNumber } from './fleet.js';
import { ParleyNode, startSimProcess, type Memory } from './processes.js';

export interface MemoryResult {
  channel: 'whatsapp' | 'sandbox';
  /** Sessions asked for. */
  wanted: number;
  /** Sessions linked (fewer than wanted when the link deadline passed first). */
  sessions: number;
  base: Memory;
  idle: Memory;
  /** Seconds to link all N. */
  linkSeconds: number;
  /** Parley's CPU seconds while linking. */
  linkCpuSeconds: number;
  /** The simulator's RSS at the end (MiB), for reference. */
  simRssMiB: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface MemoryOptions {
  concurrency: number;
  idleSeconds: number;
  /** No new link starts after this many seconds of linking; the sessions linked by then are measured. */
  deadlineSeconds: number;
}

export async function memoryScenario(channel: 'whatsapp' | 'sandbox', wanted: number, options: MemoryOptions): Promise<MemoryResult> {
  const { concurrency, idleSeconds } = options;
  const sim = await startSimProcess();
  const node = await ParleyNode.start(sim);
  try {
    const link = (index: number) => (channel === 'whatsapp' ? linkWhatsApp(node, sim, simNumber(1, index)) : linkSandbox(node, simNumber(2, index)));
    await link(0);
    await sleep(idleSeconds * 1000);
    const base = await node.memory();
    const started = Date.now();
    const cpu = node.cpuMicros();
    let done = 0;
    const deadline = started + options.deadlineSeconds * 1000;
    await pool(Array.from({ length: wanted }, (_, i) => i + 1), concurrency, async (index) => {
      if (Date.now() > deadline) return;
      // A link that fails (twice, for WhatsApp: an expired QR under load) is left out of the count, not fatal.
      if (!(await link(index).then(() => true, (err: Error) => (console.error(`  ${channel} ${index}: ${err.message}`), false)))) return;
      done += 1;
      if (done % 50 === 0) console.error(`  ${channel}: ${done}/${wanted} linked, ${((Date.now() - started) / 1000).toFixed(0)} s, RSS ${node.rssMiB().toFixed(0)} MiB`);
    });
    const linkSeconds = (Date.now() - started) / 1000;
    const linkCpuSeconds = (node.cpuMicros() - cpu) / 1e6;
    await sleep(idleSeconds * 1000);
    const idle = await node.memory();
    return { channel, wanted, sessions: done, base, idle, linkSeconds, linkCpuSeconds, simRssMiB: rssMiBOf(sim.pid) };
  } finally {
    await node.stop();
    await sim.stop();
  }
}
