/**
 * bench/webhooks, whole path (issue 26, target 2): a real Parley server on SQLite in its own process
 * (./whole-path-target.ts), where a sandbox phone sends `BENCH_WP_SENDS` texts (REST, autocannon, the
 * recipients in turn) to BENCH_PEERS (20) sandbox phones, each with a native webhook to a local
 * receiver process (./receiver.ts) answering 200 at once: each message is sent, received by its
 * phone, stored, routed, rendered, queued, claimed, signed, POSTed and booked. Beside it, in the same
 * interleaved rounds:
 * - `none`: the same server and load with no webhook configured, so that "webhook path" =
 *   (CPU with webhooks − CPU without) per send ÷ deliveries per send is the cost of the webhooks alone;
 * - `bare undici` / `bare node:http`: a process re-POSTing the bodies and headers the receiver
 *   captured in that round, at the engine's concurrency (16 by default), over keep-alive (./bare-loop.ts).
 * CPU is user + system time: of the Parley process from /proc/<pid>/stat (until every delivery of the
 * round arrived), of the bare loop from its own `process.cpuUsage`. Ratios are medians of per-round ratios.
 *
 * Run: `npm run build && node bench/dist/webhooks/whole-path.bench.js` (with BENCH_WP_TREES the trees alternate going first, round by round)
 * Env: BENCH_WP_SENDS (per round, 3000), BENCH_WP_ROUNDS (5), BENCH_CONNECTIONS (16),
 *      BENCH_WP_TREES: extra builds of the repository to run beside this one, as `name=dir,…`
 *      (each dir a built checkout with bench/dist/webhooks/whole-path-target.js): same-run A/B of a change.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { resolveWebhookOptions } from '@parley/webhooks';
import { cpuMicrosOf, machine, percentile, table } from '../support/measure.js';
import { queueDrained, sendLoad } from '../support/send-load.js';
import { Receiver } from './receiver-client.js';

const SENDS = Number(process.env.BENCH_WP_SENDS ?? 3_000);
const ROUNDS = Number(process.env.BENCH_WP_ROUNDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const CONCURRENCY = resolveWebhookOptions({}).concurrency;
const here = fileURLToPath(new URL('.', import.meta.url));
const trees: [string, string][] = [['this tree', here], ...(process.env.BENCH_WP_TREES ?? '').split(',').filter(Boolean)
  .map((entry) => entry.split('=') as [string, string]).map(([name, dir]): [string, string] => [name, join(dir, 'bench/dist/webhooks')])];
const dir = mkdtempSync(join(tmpdir(), 'parley-bench-wp-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]) => percentile(values, 50);

interface Target {
  child: ChildProcess;
  info: { port: number; key: string; to: string[] };
}

async function start(folder: string, mode: 'webhooks' | 'none', receiver: Receiver): Promise<Target> {
  const child = spawn(process.execPath, [join(folder, 'whole-path-target.js'), receiver.url, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`target exited with ${code}`)));
  });
  return { child, info: JSON.parse(line) as Target['info'] };
}

/**
 * Sends `amount` texts and waits until the sender's queue is empty. Answers the sends answered 2xx;
 * a request autocannon gave up on (its 10 s time-out, on a loaded machine) is not counted, and the
 * deliveries are counted at the receiver, so it cannot skew a per-delivery figure.
 */
async function sendAll(target: Target, amount: number): Promise<number> {
  const base = `http://127.0.0.1:${target.info.port}`;
  const result = await sendLoad(base, target.info.key, target.info.to, { connections: CONNECTIONS, amount });
  if (result.non2xx > 0) throw new Error(`${result.non2xx} non-2xx answers`);
  if (result.errors > 0) console.error(`  ${result.errors} requests timed out at the client`);
  await queueDrained(base, target.info.key);
  return result['2xx'];
}

/** Waits until the receiver's count stops moving for `quietMs`; answers it. */
async function settled(receiver: Receiver, quietMs = 1_500): Promise<number> {
  let last = -1;
  for (;;) {
    const count = await receiver.count();
    if (count === last) return count;
    last = count;
    await sleep(quietMs);
  }
}

const receiver = await Receiver.start();
const none = await start(here, 'none', receiver);
await sendAll(none, 1_000);
const withHooks = new Map<string, Target>();
let perSend = 0;
for (const [name, folder] of trees) {
  const target = await start(folder, 'webhooks', receiver);
  receiver.reset();
  const sent = await sendAll(target, 1_000);
  perSend = (await settled(receiver)) / sent;
  withHooks.set(name, target);
}
console.error(`warm-up done: ${perSend.toFixed(2)} webhook deliveries per send`);

interface Round {
  /** Parley CPU µs per delivered webhook, the whole path (sends included). */
  whole: Map<string, number>;
  /** Parley CPU µs per send without webhooks. */
  noneUs: number;
  bareUndici: number;
  bareNodeHttp: number;
}

/** One round of a webhook target: CPU per delivery; keeps the captured requests for the bare loops. */
async function hookRound(target: Target): Promise<number> {
  receiver.reset();
  receiver.capture(true);
  const before = cpuMicrosOf(target.child.pid!);
  await sendAll(target, SENDS);
  // Every delivery of the round arrived once the count stops moving (the wait is idle for Parley).
  const delivered = await settled(receiver, 1_000);
  return (cpuMicrosOf(target.child.pid!) - before) / delivered;
}

async function bare(file: string, client: 'undici' | 'node-http'): Promise<number> {
  const child = spawn(process.execPath, [join(here, 'bare-loop.js'), receiver.url, file, String(CONCURRENCY), client], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => code !== 0 && reject(new Error(`bare loop exited with ${code}`)));
  });
  const { requests, cpuUs } = JSON.parse(line) as { requests: number; cpuUs: number };
  return cpuUs / requests;
}

const rounds: Round[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const whole = new Map<string, number>();
  // The trees take turns going first: a machine getting busier within a round hits each as often.
  for (const [name] of r % 2 === 0 ? trees : [...trees].reverse()) whole.set(name, await hookRound(withHooks.get(name)!));
  const requests = await receiver.captured();
  receiver.capture(false);
  const file = join(dir, `round-${r}.json`);
  writeFileSync(file, JSON.stringify(requests));
  const before = cpuMicrosOf(none.child.pid!);
  const sent = await sendAll(none, SENDS);
  await sleep(1_000);
  const noneUs = (cpuMicrosOf(none.child.pid!) - before) / sent;
  const round = { whole, noneUs, bareUndici: await bare(file, 'undici'), bareNodeHttp: await bare(file, 'node-http') };
  rounds.push(round);
  console.error(`round ${r + 1}: ${[...whole].map(([n, us]) => `${n} ${Math.round(us)} µs/delivery`).join(', ')}; none ${Math.round(noneUs)} µs/send; `
    + `bare undici ${Math.round(round.bareUndici)}, node:http ${Math.round(round.bareNodeHttp)} µs/request`);
}
for (const target of [none, ...withHooks.values()]) target.child.kill('SIGTERM');
receiver.stop();

/** The webhooks' own CPU per delivery in a round: with webhooks minus without, per send, over deliveries per send. */
const hookOnly = (round: Round, name: string) => (round.whole.get(name)! * perSend - round.noneUs) / perSend;
const ratio = (values: number[]) => `${median(values).toFixed(2)}×`;
console.log(`\n### bench/webhooks, whole path — ${new Date().toISOString().slice(0, 16)} UTC, ${machine()}; ${SENDS} sends a round to ${none.info.to.length} `
  + `phones with native webhooks (${perSend.toFixed(2)} deliveries a send), ${ROUNDS} interleaved rounds, ${CONNECTIONS} connections, webhook concurrency ${CONCURRENCY}\n`);
console.log(table(
  ['tree', 'whole path CPU µs/delivery', 'webhook path CPU µs/delivery (with − without webhooks)', 'bare undici µs/request', 'bare node:http µs/request',
    'whole path ÷ bare undici', 'webhook path ÷ bare undici', 'webhook path ÷ bare node:http'],
  trees.map(([name]) => [
    name, Math.round(median(rounds.map((r) => r.whole.get(name)!))), Math.round(median(rounds.map((r) => hookOnly(r, name)))),
    Math.round(median(rounds.map((r) => r.bareUndici))), Math.round(median(rounds.map((r) => r.bareNodeHttp))),
    ratio(rounds.map((r) => r.whole.get(name)! / r.bareUndici)), ratio(rounds.map((r) => hookOnly(r, name) / r.bareUndici)),
    ratio(rounds.map((r) => hookOnly(r, name) / r.bareNodeHttp)),
  ]),
));
console.log(`\nWithout webhooks: ${Math.round(median(rounds.map((r) => r.noneUs)))} µs of Parley CPU per send (median round).`);
if (trees.length > 1) {
  const [first] = trees[0]!;
  for (const [name] of trees.slice(1)) {
    console.log(`${first} ÷ ${name}, webhook path CPU per delivery (median of per-round ratios): ${ratio(rounds.map((r) => hookOnly(r, first) / hookOnly(r, name)))}; `
      + `whole path: ${ratio(rounds.map((r) => r.whole.get(first)! / r.whole.get(name)!))}`);
  }
}
