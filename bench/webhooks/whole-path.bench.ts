/**
 * bench/webhooks, whole path (issue 26, target 2): a real Parley server on SQLite in its own process
 * (./whole-path-target.ts), where a sandbox phone sends `BENCH_WP_SENDS` texts (REST, autocannon, the
 * recipients in turn) to BENCH_PEERS (20) sandbox phones, each with a native webhook to a local
 * receiver process (./receiver.ts) answering 200 at once: each message is sent, received by its
 * phone, stored, routed, rendered, queued, claimed, signed, POSTed and booked. Beside it, in the same
 * interleaved rounds:
 * - the same process with its webhooks switched off (`allowWebhook: false`) for as many sends, before
 *   or after (the order alternating by round), so that "webhook path" = (CPU with webhooks − CPU
 *   without) per send ÷ deliveries per send is the cost of the webhooks alone, without the spread
 *   between two processes; `none`, a process with no webhook configured, is shown beside it;
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
import type { CapturedRequest } from './receiver.js';

const SENDS = Number(process.env.BENCH_WP_SENDS ?? 3_000);
const ROUNDS = Number(process.env.BENCH_WP_ROUNDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const CONCURRENCY = resolveWebhookOptions({}).concurrency;
const here = fileURLToPath(new URL('.', import.meta.url));
const trees: [string, string][] = [['this tree', here], ...(process.env.BENCH_WP_TREES ?? '').split(',').filter(Boolean)
  .map((entry) => entry.split('=') as [string, string]).map(([name, dir]): [string, string] => [name, join(dir, 'bench/dist/webhooks')])];
const dir = mkdtempSync(join(tmpdir(), 'parley-bench-wp-'));
const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]) => percentile(values, 50);

interface Target {
  child: ChildProcess;
  info: { port: number; key: string; to: string[]; peerKeys: string[] };
}

async function start(folder: string, mode: 'webhooks' | 'none', receiver: Receiver): Promise<Target> {
  const child = spawn(process.execPath, [join(folder, 'whole-path-target.js'), receiver.url, mode], { stdio: ['ignore', 'pipe', 'inherit'] });
  // A bench that fails half-way stops its targets too.
  children.add(child);
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

/** Turns every receiving phone's webhook on or off (`allowWebhook`), its URL and format kept. */
async function webhooksOn(target: Target, on: boolean): Promise<void> {
  const base = `http://127.0.0.1:${target.info.port}`;
  for (const key of target.info.peerKeys) {
    const res = await fetch(`${base}/${key}/instance`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ allowWebhook: on }) });
    if (res.status !== 200) throw new Error(`allowWebhook ${on}: HTTP ${res.status} ${await res.text()}`);
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
  /** The same process's CPU µs per send with its webhooks switched off, in the same round. */
  off: Map<string, number>;
  /** Parley CPU µs per send in a process without any webhook. */
  noneUs: number;
  bareUndici: number;
  bareNodeHttp: number;
}

/** Sends before the counted phases of a round (see {@link pairedRound}). */
const WARM_SENDS = 300;
/** After the last expected request or send, how long a round's CPU is still counted (ms): the same for every kind of round. */
const TAIL_MS = 200;

/** Waits until the receiver got `count` requests (polling every 50 ms); false after `limitMs`. */
async function reached(count: number, limitMs = 30_000): Promise<boolean> {
  for (const until = performance.now() + limitMs; performance.now() < until; await sleep(50)) if ((await receiver.count()) >= count) return true;
  return false;
}

/**
 * One round of a webhook target: CPU per delivery, counted until {@link TAIL_MS} after the round's
 * last delivery arrived (not over the idle wait that makes sure no other follows); the receiver keeps
 * the requests for the bare loops.
 */
async function hookRound(target: Target): Promise<number> {
  receiver.reset();
  receiver.capture(true);
  const before = cpuMicrosOf(target.child.pid!);
  const sent = await sendAll(target, SENDS);
  if (!(await reached(Math.round(sent * perSend)))) throw new Error(`the deliveries of ${sent} sends did not all arrive`);
  await sleep(TAIL_MS);
  const used = cpuMicrosOf(target.child.pid!) - before;
  return used / (await settled(receiver, 1_000));
}

/** CPU per send of a target while nothing is delivered (its webhooks off, or none configured), counted until {@link TAIL_MS} after the sends. */
async function quietRound(target: Target): Promise<number> {
  const before = cpuMicrosOf(target.child.pid!);
  const sent = await sendAll(target, SENDS);
  await sleep(TAIL_MS);
  return (cpuMicrosOf(target.child.pid!) - before) / sent;
}

/**
 * A target's sends with its webhooks on, then off (the other way round every other round), in one
 * process: the difference is the webhooks' own CPU without the spread between processes (their heaps,
 * their databases' sizes). Answers µs per delivery (on) and µs per send (off), and the captured requests.
 */
async function pairedRound(target: Target, onFirst: boolean): Promise<{ on: number; off: number; requests: CapturedRequest[] }> {
  let on = 0;
  let off = 0;
  let requests: CapturedRequest[] = [];
  // Not counted: the first sends after the process sat idle cost more (measured: about +60 µs a send),
  // whichever phase comes first.
  await webhooksOn(target, onFirst);
  await sendAll(target, WARM_SENDS);
  if (onFirst) await settled(receiver, 500);
  for (const webhooks of onFirst ? [true, false] : [false, true]) {
    if (webhooks !== onFirst) await webhooksOn(target, webhooks);
    if (webhooks) {
      on = await hookRound(target);
      requests = await receiver.captured();
      receiver.capture(false);
    } else off = await quietRound(target);
  }
  return { on, off, requests };
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

/** The webhooks' own CPU per delivery in a round: with webhooks minus without (the same process switched off), per send, over deliveries per send. */
const hookOnly = (round: Round, name: string) => (round.whole.get(name)! * perSend - round.off.get(name)!) / perSend;
const rounds: Round[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const whole = new Map<string, number>();
  const off = new Map<string, number>();
  let requests: CapturedRequest[] = [];
  // The trees take turns going first: a machine getting busier within a round hits each as often.
  for (const [name] of r % 2 === 0 ? trees : [...trees].reverse()) {
    const paired = await pairedRound(withHooks.get(name)!, r % 2 === 0);
    whole.set(name, paired.on);
    off.set(name, paired.off);
    requests = paired.requests;
  }
  const file = join(dir, `round-${r}.json`);
  writeFileSync(file, JSON.stringify(requests));
  const noneUs = await quietRound(none);
  const round = { whole, off, noneUs, bareUndici: await bare(file, 'undici'), bareNodeHttp: await bare(file, 'node-http') };
  rounds.push(round);
  console.error(`round ${r + 1}: ${[...whole].map(([n, us]) => `${n} ${Math.round(us)} µs/delivery, off ${Math.round(off.get(n)!)} µs/send`).join('; ')}; `
    + `none ${Math.round(noneUs)} µs/send; bare undici ${Math.round(round.bareUndici)}, node:http ${Math.round(round.bareNodeHttp)} µs/request; `
    + `webhook path ÷ bare undici ${[...whole.keys()].map((n) => `${n} ${(hookOnly(round, n) / round.bareUndici).toFixed(2)}×`).join(', ')}`);
}
for (const target of [none, ...withHooks.values()]) target.child.kill('SIGTERM');
receiver.stop();

const ratio = (values: number[]) => `${median(values).toFixed(2)}×`;
console.log(`\n### bench/webhooks, whole path — ${new Date().toISOString().slice(0, 16)} UTC, ${machine()}; ${SENDS} sends a round to ${none.info.to.length} `
  + `phones with native webhooks (${perSend.toFixed(2)} deliveries a send), ${ROUNDS} interleaved rounds, ${CONNECTIONS} connections, webhook concurrency ${CONCURRENCY}\n`);
console.log(table(
  ['tree', 'whole path CPU µs/delivery', 'webhook path CPU µs/delivery (with − without webhooks, same process)', 'bare undici µs/request', 'bare node:http µs/request',
    'whole path ÷ bare undici', 'webhook path ÷ bare undici', 'webhook path ÷ bare node:http'],
  trees.map(([name]) => [
    name, Math.round(median(rounds.map((r) => r.whole.get(name)!))), Math.round(median(rounds.map((r) => hookOnly(r, name)))),
    Math.round(median(rounds.map((r) => r.bareUndici))), Math.round(median(rounds.map((r) => r.bareNodeHttp))),
    ratio(rounds.map((r) => r.whole.get(name)! / r.bareUndici)), ratio(rounds.map((r) => hookOnly(r, name) / r.bareUndici)),
    ratio(rounds.map((r) => hookOnly(r, name) / r.bareNodeHttp)),
  ]),
));
console.log(`\nWithout webhooks: ${trees.map(([name]) => `${name} (switched off) ${Math.round(median(rounds.map((r) => r.off.get(name)!)))}`).join(', ')}, `
  + `a process without any webhook ${Math.round(median(rounds.map((r) => r.noneUs)))} µs of Parley CPU per send (median round).`);
if (trees.length > 1) {
  const [first] = trees[0]!;
  for (const [name] of trees.slice(1)) {
    console.log(`${first} ÷ ${name}, webhook path CPU per delivery (median of per-round ratios): ${ratio(rounds.map((r) => hookOnly(r, first) / hookOnly(r, name)))}; `
      + `whole path: ${ratio(rounds.map((r) => r.whole.get(first)! / r.whole.get(name)!))}`);
  }
}
