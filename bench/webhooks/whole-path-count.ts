/**
 * bench/webhooks, whole path, exact work per delivery: the SQLite statements and commits the Parley
 * process runs per delivered webhook, counted by bench/support/count-statements.cjs (each tree's own
 * copy preloaded into its target), with the same load as ./whole-path.bench.ts. Counts do not depend
 * on the machine's load, so they show what a change removed where CPU figures on a shared machine are noisy.
 *
 * Run: `node bench/dist/webhooks/whole-path-count.js [name=dir …]` (this tree, and each built checkout named)
 * Env: BENCH_WP_SENDS (2000).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { table } from '../support/measure.js';
import { queueDrained, sendLoad } from '../support/send-load.js';
import { Receiver } from './receiver-client.js';

const SENDS = Number(process.env.BENCH_WP_SENDS ?? 2_000);
const root = fileURLToPath(new URL('../../..', import.meta.url));
const trees: [string, string][] = [['this tree', root], ...process.argv.slice(2).map((arg) => arg.split('=') as [string, string])];
const dir = mkdtempSync(join(tmpdir(), 'parley-bench-wp-count-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Counted { sql: string; kind: string; calls: number }

/** Statement calls by kind per delivery, and the commits, in one tree. */
async function count(name: string, tree: string, receiver: Receiver): Promise<Record<string, number>> {
  const out = join(dir, `${name.replace(/\W/g, '_')}.json`);
  const child = spawn(process.execPath, ['--require', join(tree, 'bench/support/count-statements.cjs'), join(tree, 'bench/dist/webhooks/whole-path-target.js'), receiver.url, 'webhooks'],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, COUNT_STATEMENTS_OUT: out } });
  const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
  const info = JSON.parse(line) as { port: number; key: string; to: string[] };
  const base = `http://127.0.0.1:${info.port}`;
  const settled = async () => {
    for (let last = -1; ;) {
      const now = await receiver.count();
      if (now === last) return now;
      last = now;
      await sleep(1_000);
    }
  };
  await sendLoad(base, info.key, info.to, { connections: 16, amount: 500 });
  await queueDrained(base, info.key);
  await settled();
  receiver.reset();
  child.kill('SIGUSR2');
  await sleep(200);
  await sendLoad(base, info.key, info.to, { connections: 16, amount: SENDS });
  await queueDrained(base, info.key);
  const delivered = await settled();
  child.kill('SIGUSR1');
  await sleep(500);
  child.kill('SIGTERM');
  const counted = (JSON.parse(readFileSync(out, 'utf8')) as { statements: Counted[] }).statements;
  const per: Record<string, number> = { delivered };
  for (const entry of counted) {
    const kind = entry.kind === 'transaction' ? (entry.sql.trim().toUpperCase().startsWith('COMMIT') ? 'commits' : 'begin/rollback') : entry.kind;
    per[kind] = (per[kind] ?? 0) + entry.calls;
    if (/deliveries/.test(entry.sql)) per['on deliveries'] = (per['on deliveries'] ?? 0) + entry.calls;
    // BENCH_WP_DETAIL=1: each statement on the delivery queue, per delivery.
    if (process.env.BENCH_WP_DETAIL && /deliveries|COMMIT/.test(entry.sql)) console.error(`${name}: ${(entry.calls / delivered).toFixed(3)}  ${entry.sql.slice(0, 110)}`);
  }
  return per;
}

const receiver = await Receiver.start();
const results: [string, Record<string, number>][] = [];
for (const [name, tree] of trees) results.push([name, await count(name, tree, receiver)]);
receiver.stop();
const kinds = ['commits', 'read', 'write', 'savepoint', 'on deliveries'];
console.log(`\n${SENDS} sends, statements per delivered webhook (SQLite, the Parley process, send and webhook path together):\n`);
console.log(table(['tree', 'delivered', ...kinds], results.map(([name, per]) => [name, per.delivered!, ...kinds.map((k) => ((per[k] ?? 0) / per.delivered!).toFixed(2))])));
