/**
 * Redis commands per send: starts the `parley-redis` target (./target.ts) on the Redis at REDIS_URL,
 * warms it up, reads the redis-server's CPU (/proc) over BENCH_SENDS (500) sends, then watches that
 * Redis with `redis-cli MONITOR` over as many more sends through `POST /{key}/message/text` and until
 * the outbound queue is empty, and prints the commands Parley sent per send (each EVALSHA counts
 * once: a Lua script is one command) by name and the kind of its first key (`EVALSHA ob`: an outbound
 * queue script), and beside them the calls made inside Lua scripts. Use a private `redis-server
 * --port <free> --save '' --appendonly no`: MONITOR sees every client (and slows the server, so the
 * CPU is read before it starts). node-redis writes the commands of one turn together (pipelining):
 * not every command is a round trip waited for alone, but each is parsed, run and answered by Redis.
 * BENCH_CONNECTIONS (20): autocannon's connections (at 20 and at 100 alike, most sends were leased
 * as they were enqueued rather than claimed by the queue's worker: bench/RESULTS.md).
 * Run: `REDIS_URL=redis://127.0.0.1:<port> node bench/dist/rest-send/redis-round-trips.js`
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { cpuMicrosOf, table } from '../support/measure.js';
import { redisServerPid } from '../support/redis-cpu.js';
import { queueDrained, sendLoad } from '../support/send-load.js';

const SENDS = Number(process.env.BENCH_SENDS ?? 500);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 20);
const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const child = spawn(process.execPath, [fileURLToPath(new URL('./target.js', import.meta.url)), 'parley-redis'], { stdio: ['ignore', 'pipe', 'inherit'] });
const info = JSON.parse(await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve))) as { port: number; key: string; to: string[] };
const base = `http://127.0.0.1:${info.port}`;
const send = (amount: number) => sendLoad(base, info.key, info.to, { connections: CONNECTIONS, amount });
await send(200);
await queueDrained(base, info.key);

// First without MONITOR: the redis-server's CPU over the same number of sends.
const pid = await redisServerPid(url.href);
const cpuBefore = cpuMicrosOf(pid);
const timed = await send(SENDS);
if (timed.non2xx > 0 || timed.errors > 0) throw new Error(`${timed.non2xx} non-2xx answers, ${timed.errors} errors`);
await queueDrained(base, info.key);
const redisCpuPerSend = (cpuMicrosOf(pid) - cpuBefore) / SENDS;

const monitor = spawn('redis-cli', ['-h', url.hostname, '-p', url.port || '6379', 'MONITOR'], { stdio: ['ignore', 'pipe', 'inherit'] });
const outer = new Map<string, number>();
const inner = new Map<string, number>();
createInterface({ input: monitor.stdout }).on('line', (line) => {
  const match = /\[\d+ ([^\]]+)\] "([^"]+)"(?: "[0-9a-f]{40}" "\d+")? "parley-bench-rest-\d+:([a-z-]+)/.exec(line) ?? /\[\d+ ([^\]]+)\] "([^"]+)"/.exec(line);
  if (!match) return;
  const counts = match[1] === 'lua' ? inner : outer;
  // Named with the kind of the first key (msg, chat, ob, dq, state…): which repository sent it.
  const name = `${match[2]!.toUpperCase()}${match[3] ? ` ${match[3]}` : ''}`;
  counts.set(name, (counts.get(name) ?? 0) + 1);
});
await new Promise((resolve) => setTimeout(resolve, 500));
const result = await send(SENDS);
if (result.non2xx > 0 || result.errors > 0) throw new Error(`${result.non2xx} non-2xx answers, ${result.errors} errors`);
await queueDrained(base, info.key);
await new Promise((resolve) => setTimeout(resolve, 500));
monitor.kill('SIGTERM');
child.kill('SIGTERM');

const perSend = (n: number) => (n / SENDS).toFixed(2);
const total = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);
const rows = (counts: Map<string, number>) => [...counts].sort((a, b) => b[1] - a[1]).map(([name, n]) => [name, n, perSend(n)]);
console.log(`\nredis-server CPU per send (${SENDS} sends, ${CONNECTIONS} connections, no MONITOR): ${Math.round(redisCpuPerSend)} µs`);
console.log(`\n### Redis commands per send (${SENDS} sends, queue drained; the queue's status polls included)\n`);
console.log(table(['command', 'count', 'per send'], [...rows(outer), ['**total**', total(outer), perSend(total(outer))]]));
console.log(`\nInside Lua scripts: ${perSend(total(inner))} calls per send\n`);
console.log(table(['call in Lua', 'count', 'per send'], rows(inner)));
