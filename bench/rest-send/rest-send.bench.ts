/**
 * bench/rest-send: sustained `POST /{key}/message/text` between two sandbox instances, beside a bare
 * express 5 app and a bare node:http server answering the same request, in one run. Each target runs
 * in its own process; autocannon drives it from this one.
 * Run: `npm run build && node bench/dist/rest-send/rest-send.bench.js`
 * Env: BENCH_SECONDS (default 15), BENCH_CONNECTIONS (100), BENCH_SENDS (0; set 1000000 for the RSS run).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { machine, table } from '../support/measure.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 100);
const SENDS = Number(process.env.BENCH_SENDS ?? 0);
const target = fileURLToPath(new URL('./target.js', import.meta.url));

interface Started {
  child: ChildProcess;
  info: { port: number; key?: string; to?: string };
}

async function start(kind: string): Promise<Started> {
  const child = spawn(process.execPath, [target, kind], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${kind} exited with ${code}`)));
  });
  return { child, info: JSON.parse(line) as Started['info'] };
}

function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024);
}

async function load(port: number, key: string, to: string, amount?: number) {
  return autocannon({
    url: `http://127.0.0.1:${port}/${key}/message/text`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ to, text: 'hello from the benchmark' }),
    connections: CONNECTIONS,
    ...(amount ? { amount } : { duration: SECONDS }),
  });
}

async function measure(kind: string) {
  const { child, info } = await start(kind);
  const key = info.key ?? 'bench';
  const to = info.to ?? '5511970000002';
  await load(info.port, key, to, 2000); // warm-up
  const result = await load(info.port, key, to);
  const rss = rssOf(child.pid!);
  child.kill('SIGTERM');
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${kind}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  return { kind, rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, rss };
}

const rows = [];
for (const kind of ['bare-http', 'bare-express', 'parley']) rows.push(await measure(kind));
const express = rows[1]!.rps;
console.log(`\n### bench/rest-send — ${machine()}, ${CONNECTIONS} connections, ${SECONDS} s each\n`);
console.log(table(['target', 'req/s', 'p50 ms', 'p99 ms', 'RSS MiB after', 'vs bare express'],
  rows.map((r) => [r.kind, r.rps, r.p50, r.p99, r.rss, `${Math.round((r.rps / express) * 100)}%`])));

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
