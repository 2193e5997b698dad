/**
 * bench/rest-send: sustained `POST /{key}/message/text` between two sandbox instances, beside a bare
 * express 5 app and a bare node:http server answering the same request. Each target runs in its own
 * process, started once; autocannon drives them from this one in interleaved rounds (http, express,
 * parley, parley-redis, http, …) so that a slower stretch of a shared machine hits every target,
 * and the table shows each target's median round (`parley` stores on SQLite, `parley-redis` on the Redis
 * at REDIS_URL under a key prefix of its own). "vs bare express" is the median of the per-round
 * ratios (express and Parley measured back to back); CPU µs/req is the target process's own user +
 * system time per answered request (for queued targets until their queue is empty, so that the sends
 * answered PENDING are paid for too), which other load on the machine disturbs far less than req/s.
 * Run: `npm run build && node bench/dist/rest-send/rest-send.bench.js`
 * Since issue 16 the sends rotate over BENCH_PEERS receiving sandbox phones (20 by default; 1 is the
 * earlier single conversation): the outbound queue keeps order per recipient, so one recipient's sends
 * leave one at a time, while the direct path sent them all at once.
 * `parley` sends through the outbound queue (issue 16; the sandbox paces nothing), `parley-direct` is
 * the same server with `queue.enabled` false (the send path before the queue): "queue vs direct" is the
 * median of their per-round req/s ratios.
 * req/s counts sends *answered*; a queued target may answer a send `PENDING` and send it later. "sent/s
 * end to end" counts each queued target's sends completed: the round's answered sends ÷ (the round +
 * the time its queue then took to drain), and "vs parley sqlite (sent/s end to end)" compares on that basis.
 * Env: BENCH_SECONDS (per round, default 10), BENCH_ROUNDS (3), BENCH_CONNECTIONS (100),
 * BENCH_SENDS (0; set 1000000 for the RSS run), BENCH_SCHEDULED (0; set 100000 for the queue memory
 * run: that many sends scheduled an hour ahead, RSS of the server after each tenth),
 * BENCH_KINDS (comma-separated targets, default all).
 * `fair-baseline` (issue 26) does a send's storage work and nothing else (./fair-baseline.ts): "Parley vs
 * the fair baseline" is the median of the per-round ratios of their CPU per send (target ≤ 1.25×).
 * `parley-postgres` stores on the PostgreSQL at DATABASE_URL, in a database of its own: its CPU µs/req
 * adds the CPU of the server's backends serving that database (their /proc times; PostgreSQL's shared
 * background processes, the WAL writer and checkpointer, serve every database and are not counted).
 * `parley-redis` likewise adds the CPU of the redis-server at REDIS_URL (its `INFO server` process_id,
 * /proc): on a shared Redis other clients' commands count too, so a private `redis-server --port <free>
 * --save '' --appendonly no` gives the clean figure; "CPU µs/req" then counts Parley and Redis together,
 * and the Redis server's own share is printed below the table.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { cpuMicrosOf, machine, percentile, rssMiBOf, table } from '../support/measure.js';
import { queueDrained, sendLoad } from '../support/send-load.js';
import { backendCpuMicros } from '../support/postgres-cpu.js';
import { redisServerPid } from '../support/redis-cpu.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 100);
const SENDS = Number(process.env.BENCH_SENDS ?? 0);
const SCHEDULED = Number(process.env.BENCH_SCHEDULED ?? 0);
const target = fileURLToPath(new URL('./target.js', import.meta.url));

interface Started {
  child: ChildProcess;
  info: { port: number; key?: string; to?: string[]; database?: string };
}

async function start(kind: string): Promise<Started> {
  const child = spawn(process.execPath, [target, kind], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${kind} exited with ${code}`)));
  });
  return { child, info: JSON.parse(line) as Started['info'] };
}

const rssOf = (pid: number): number => Math.round(rssMiBOf(pid));

/** The sends rotate over the receiving phones (one per request, in turn); bare targets get the same bodies. */
function load(port: number, key: string, to: string[], amount?: number, extra: Record<string, unknown> = {}) {
  return sendLoad(`http://127.0.0.1:${port}`, key, to, { connections: CONNECTIONS, seconds: SECONDS, ...(amount ? { amount } : {}), extra });
}

/** Targets that send through the outbound queue: a round counts as over once their queue is empty. */
const QUEUED = new Set(['parley', 'parley-redis', 'parley-postgres']);

/**
 * Sends the queue accepted but has not sent yet (their recipient's earlier sends were still going
 * out) leave after the round: the next round starts once the target's queue is empty, so no round
 * pays for another's backlog. How long that took is printed and counted in the round's end-to-end
 * rate.
 */
async function drained(kind: string, info: Started['info']): Promise<void> {
  if (!QUEUED.has(kind)) return;
  const ms = await queueDrained(`http://127.0.0.1:${info.port}`, info.key!).catch((err: Error) => {
    throw new Error(`${kind}: ${err.message}`);
  });
  console.error(`${kind}: queue drained in ${Math.round(ms)} ms (0 left)`);
}

interface Round {
  rps: number;
  /** Sends accepted in the round ÷ (the round + the drain of its queue): sends completed per second. */
  sentPerSecond: number;
  p50: number;
  p99: number;
  cpuPerRequest: number;
  /** The part of cpuPerRequest spent by a database server process (redis-server, PostgreSQL backends). */
  serverCpuPerRequest: number;
}

/** The redis-server's pid, for `parley-redis` (its CPU counts with the target's). */
const redisPid = process.env.BENCH_KINDS?.split(',').includes('parley-redis') === false ? undefined
  : await redisServerPid(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');

/** One measured round against a running target. */
async function round(kind: string, target: Started): Promise<Round> {
  const { child, info } = target;
  const cpuBefore = cpuMicrosOf(child.pid!);
  const serverBefore = info.database ? await backendCpuMicros(info.database) : undefined;
  const redisBefore = kind === 'parley-redis' ? cpuMicrosOf(redisPid!) : undefined;
  const started = performance.now();
  const result = await load(info.port, info.key ?? 'bench', info.to ?? ['5511970000002']);
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${kind}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  // A queued send answered PENDING is still sent after the round: its CPU counts once the queue is empty.
  await drained(kind, info);
  const server = (serverBefore ? await backendCpuMicros(info.database!, serverBefore) : 0) + (redisBefore !== undefined ? cpuMicrosOf(redisPid!) - redisBefore : 0);
  const cpu = cpuMicrosOf(child.pid!) - cpuBefore + server;
  const sentPerSecond = result.requests.total / ((performance.now() - started) / 1000);
  return {
    rps: result.requests.average, sentPerSecond, p50: result.latency.p50, p99: result.latency.p99,
    cpuPerRequest: cpu / result.requests.total, serverCpuPerRequest: server / result.requests.total,
  };
}

const median = (values: number[]) => percentile(values, 50);
const kinds = process.env.BENCH_KINDS?.split(',') ?? ['bare-http', 'bare-express', 'fair-baseline', 'parley', 'parley-direct', 'parley-redis', 'parley-postgres'];
const targets = new Map<string, Started>();
for (const kind of kinds) {
  const target = await start(kind);
  await load(target.info.port, target.info.key ?? 'bench', target.info.to ?? ['5511970000002'], 2000); // warm-up
  // The warm-up's backlog drains before the first round, which would otherwise pay for it.
  await drained(kind, target.info);
  targets.set(kind, target);
}
const rounds = new Map<string, Round[]>(kinds.map((kind) => [kind, []]));
for (let r = 0; r < ROUNDS; r++) for (const kind of kinds) rounds.get(kind)!.push(await round(kind, targets.get(kind)!));
const rss = new Map(kinds.map((kind) => [kind, rssOf(targets.get(kind)!.child.pid!)]));
for (const { child } of targets.values()) child.kill('SIGTERM');

const express = rounds.get('bare-express') ?? [];
const sqlite = rounds.get('parley') ?? [];
/** Median over rounds of `kind`'s `metric` divided by `base`'s in the same round (measured back to back). */
const versus = (kind: string, base: Round[], metric: (x: Round) => number = (x) => x.rps) =>
  `${Math.round(median(rounds.get(kind)!.map((x, i) => metric(x) / metric(base[i]!))) * 100)}%`;
const sent = (x: Round) => x.sentPerSecond;
const cpuOf = (rs: Round[]) => median(rs.map((x) => x.cpuPerRequest));
console.log(`\n### bench/rest-send — ${machine()}, ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${SECONDS} s\n`);
console.log(table(['target', 'req/s', 'sent/s end to end', 'p50 ms', 'p99 ms', 'CPU µs/req', 'RSS MiB after', 'vs bare express (req/s)', 'vs bare express (CPU/req)',
  'vs parley sqlite (req/s)', 'vs parley sqlite (sent/s end to end)', 'vs parley sqlite (CPU/req)'],
  kinds.map((kind) => {
    const rs = rounds.get(kind)!;
    const cpu = cpuOf(rs);
    const isParley = kind.startsWith('parley');
    const queued = QUEUED.has(kind);
    return [kind, Math.round(median(rs.map((x) => x.rps))), queued ? Math.round(median(rs.map(sent))) : '', median(rs.map((x) => x.p50)), median(rs.map((x) => x.p99)),
      Math.round(cpu), rss.get(kind)!, isParley && express.length ? versus(kind, express) : kind === 'bare-express' ? '100%' : '',
      kind === 'bare-http' || !express.length ? '' : `${Math.round((cpuOf(express) / cpu) * 100)}%`,
      isParley && sqlite.length ? versus(kind, sqlite) : '', queued && sqlite.length ? versus(kind, sqlite, sent) : '',
      isParley && sqlite.length ? `${Math.round((cpuOf(sqlite) / cpu) * 100)}%` : ''];
  })));
if (rounds.has('fair-baseline') && rounds.has('parley')) {
  const fair = rounds.get('fair-baseline')!;
  const ratio = median(sqlite.map((x, i) => x.cpuPerRequest / fair[i]!.cpuPerRequest));
  console.log(`\nParley (SQLite) vs the fair baseline (median of per-round ratios): CPU per send ${ratio.toFixed(2)}× (issue 26 target ≤ 1.25×), `
    + `p99 ${median(sqlite.map((x) => x.p99))} ms against ${median(fair.map((x) => x.p99))} ms (target: no worse)`);
}
if (rounds.has('parley-direct') && rounds.has('parley')) {
  const direct = rounds.get('parley-direct')!;
  console.log(`\nQueue vs direct (parley / parley-direct, median of per-round ratios): req/s ${versus('parley', direct)}, CPU/req ${Math.round((cpuOf(direct) / cpuOf(sqlite)) * 100)}%`);
}
if (rounds.has('parley-redis') && rounds.has('parley')) {
  console.log(`\nRedis vs SQLite, sends completed end to end (median of per-round ratios): ${versus('parley-redis', sqlite, sent)}`);
  const redis = rounds.get('parley-redis')!;
  const server = median(redis.map((x) => x.serverCpuPerRequest));
  console.log(`CPU µs per send, parley-redis: ${Math.round(cpuOf(redis))} (Parley ${Math.round(median(redis.map((x) => x.cpuPerRequest - x.serverCpuPerRequest)))} + redis-server ${Math.round(server)}), `
    + `parley (SQLite): ${Math.round(cpuOf(sqlite))}; Redis ÷ SQLite CPU per send ${(cpuOf(redis) / cpuOf(sqlite)).toFixed(2)}×`);
}
if (rounds.has('parley-postgres') && rounds.has('parley')) {
  console.log(`\nPostgreSQL vs SQLite, sends completed end to end (median of per-round ratios): ${versus('parley-postgres', sqlite, sent)}`);
}
console.log('\nPer round (req/s, sent/s end to end, p99 ms):');
for (const kind of kinds) console.log(`- ${kind}: ${rounds.get(kind)!.map((x) => `${Math.round(x.rps)} / ${QUEUED.has(kind) ? Math.round(x.sentPerSecond) : '—'} / ${x.p99}`).join(', ')}`);

if (SENDS > 0) {
  const { child, info } = await start('parley');
  const samples: [number, number][] = [];
  const chunk = Math.ceil(SENDS / 10);
  await load(info.port, info.key!, info.to!, 5000);
  samples.push([0, rssOf(child.pid!)]);
  for (let sent = 0; sent < SENDS; sent += chunk) {
    const r = await load(info.port, info.key!, info.to!, chunk);
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`rss run: ${r.non2xx} non-2xx, ${r.errors} errors`);
    samples.push([sent + chunk, rssOf(child.pid!)]);
  }
  child.kill('SIGTERM');
  console.log(`\n### RSS of the Parley process over ${SENDS} sends (sqlite storage)\n`);
  console.log(table(['sends', 'RSS MiB'], samples));
}

if (SCHEDULED > 0) {
  const { child, info } = await start('parley');
  const base = `http://127.0.0.1:${info.port}/${info.key}`;
  // Room for the whole backlog: the default bound is 10,000 sends per instance.
  const policy = await fetch(`${base}/queue/policy`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ maxQueued: SCHEDULED }) });
  if (policy.status !== 200) throw new Error(`queue policy: HTTP ${policy.status}`);
  const samples: [number, number, number][] = [];
  const chunk = Math.ceil(SCHEDULED / 10);
  const queued = async () => ((await (await fetch(`${base}/queue?limit=1`)).json()) as { total: number }).total;
  await load(info.port, info.key!, info.to!, 2000); // warm-up, sent at once
  samples.push([0, await queued(), rssOf(child.pid!)]);
  for (let sent = 0; sent < SCHEDULED; sent += chunk) {
    const r = await load(info.port, info.key!, info.to!, chunk, { delay: 3_600_000 });
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`scheduled run: ${r.non2xx} non-2xx, ${r.errors} errors`);
    // Let the worker look at the queue a few times (it reads the next due time, never the backlog).
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    samples.push([sent + chunk, await queued(), rssOf(child.pid!)]);
  }
  child.kill('SIGTERM');
  console.log(`\n### RSS of the Parley process with ${SCHEDULED} sends scheduled an hour ahead (sqlite storage)\n`);
  console.log(table(['sends scheduled', 'queued (GET /queue total)', 'RSS MiB'], samples));
}
