/**
 * bench/memory: the server's JS heap over a sustained send load (issue 26, target 5: "a sustained
 * 2-minute send load keeps the heap flat").
 *
 * One `parley` target of bench/rest-send (SQLite storage, a sandbox sender and 20 receiving sandbox
 * phones, every send through the outbound queue) runs in its own process with `--expose-gc` and an IPC
 * channel; the bench process asks it for its memory after full collections (the target's IPC `'heap'`
 * message: a hook of the bench's own target, no endpoint of the server). After BENCH_MEMORY_WARMUP sends
 * (caches that fill up to a bound are full), the load runs BENCH_MEMORY_SECONDS (120) in segments of
 * BENCH_MEMORY_SEGMENT seconds (10) at 100 connections; after each segment the bench waits until the
 * queue is empty (every answered send has been sent, stored on both sides and logged) and samples the
 * heap. It prints each sample and the least-squares slope of the heap (and RSS) over the sends made:
 * bytes kept per send.
 *
 * Run: `npm run build && node bench/dist/memory/memory.bench.js`.
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { machine, table } from '../support/measure.js';
import { queueDrained, sendLoad } from '../support/send-load.js';

const WARMUP = Number(process.env.BENCH_MEMORY_WARMUP ?? 5_000);
const SECONDS = Number(process.env.BENCH_MEMORY_SECONDS ?? 120);
const SEGMENT = Number(process.env.BENCH_MEMORY_SEGMENT ?? 10);

interface Memory { heapUsed: number; rss: number; external: number }
interface Sample extends Memory { sends: number; seconds: number; drainMs: number }

const target = fileURLToPath(new URL('../rest-send/target.js', import.meta.url));
const child = spawn(process.execPath, ['--expose-gc', target, 'parley'], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });

/** The target's memory after full collections. */
function heap(): Promise<Memory> {
  return new Promise((resolve) => {
    child.once('message', (message) => resolve(message as Memory));
    child.send('heap');
  });
}

/** Least-squares slope of `y` over `x`. */
function slope(x: number[], y: number[]): number {
  const mx = x.reduce((a, b) => a + b, 0) / x.length;
  const my = y.reduce((a, b) => a + b, 0) / y.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < x.length; i++) {
    num += (x[i]! - mx) * (y[i]! - my);
    den += (x[i]! - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

const mib = (bytes: number) => (bytes / 1048576).toFixed(2);
const load = () => loadavg().map((x) => x.toFixed(1)).join(' ');

try {
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`target exited with ${code}`)));
  });
  const info = JSON.parse(line) as { port: number; key: string; to: string[] };
  const base = `http://127.0.0.1:${info.port}`;
  console.log(`bench/memory: ${machine()}, load average at the start ${load()}`);
  await sendLoad(base, info.key, info.to, { connections: 100, amount: WARMUP, timeout: 120 });
  await queueDrained(base, info.key);
  const samples: Sample[] = [{ ...(await heap()), sends: 0, seconds: 0, drainMs: 0 }];
  let sends = 0;
  let seconds = 0;
  while (seconds < SECONDS) {
    const result = await sendLoad(base, info.key, info.to, { connections: 100, seconds: SEGMENT, timeout: 120 });
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx answers, ${result.errors} errors`);
    const drainMs = await queueDrained(base, info.key);
    sends += result.requests.total;
    seconds += SEGMENT;
    samples.push({ ...(await heap()), sends, seconds, drainMs });
  }
  console.log(table(['load s', 'sends', 'queue drained (ms)', 'heap after GC (MiB)', 'external (MiB)', 'RSS (MiB)'],
    samples.map((s) => [s.seconds, s.sends, Math.round(s.drainMs), mib(s.heapUsed), mib(s.external), mib(s.rss)])));
  const x = samples.map((s) => s.sends);
  const first = samples[0]!;
  const last = samples.at(-1)!;
  console.log(`\n${sends} sends in ${SECONDS} s of load (${Math.round(sends / SECONDS)}/s answered) after ${WARMUP} warm-up sends`);
  console.log(`heap after GC: ${mib(first.heapUsed)} → ${mib(last.heapUsed)} MiB; slope ${slope(x, samples.map((s) => s.heapUsed)).toFixed(1)} B per send `
    + `(last − first ÷ sends: ${((last.heapUsed - first.heapUsed) / sends).toFixed(1)} B)`);
  // A cache that settles during the first samples (sizes bounded by time or count) shows as a step, not a slope:
  // the second half alone tells whether anything keeps growing.
  const half = samples.slice(Math.floor(samples.length / 2));
  console.log(`heap after GC over the second half (${half[0]!.sends}–${last.sends} sends): slope ${slope(half.map((s) => s.sends), half.map((s) => s.heapUsed)).toFixed(1)} B per send`);
  console.log(`RSS: ${mib(first.rss)} → ${mib(last.rss)} MiB; slope ${slope(x, samples.map((s) => s.rss)).toFixed(1)} B per send`);
  console.log(`load average at the end: ${load()}`);
} finally {
  child.kill('SIGTERM');
}
