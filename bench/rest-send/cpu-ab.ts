/**
 * Same-run A/B of CPU per send between builds (issue 26): each `AB_TARGETS` entry
 * `label=kind@root` is a separate process running `<root>/bench/dist/rest-send/target.js kind` (a
 * worktree or a copy of one, built), so two builds of Parley and the fair baseline are measured in
 * the same interleaved rounds on the same loaded machine. After `AB_WARMUP` sends each, every round
 * sends `AB_SENDS` to each target in turn (the order rotates per round), 100 connections (a loaded
 * machine may take longer than autocannon's 10 s per answer: 120 s here), and reads
 * the target's CPU from /proc/<pid>/stat once its queue is empty. Prints each round's CPU µs per send,
 * each target's ratio to the first one per round, and the medians, with the load average.
 *
 * `AB_COUNT=1` instead counts the statements of one pass of `AB_SENDS` sends per target
 * (`<root>/bench/support/count-statements.cjs` preloaded: the target's own better-sqlite3 and, for
 * `parley-postgres`, node-postgres), per send, by kind and by statement; for PostgreSQL with each
 * statement's mean milliseconds from call to answer.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { cpuMicrosOf, percentile } from '../support/measure.js';
import { queueDrained, sendLoad } from '../support/send-load.js';

const ROUNDS = Number(process.env.AB_ROUNDS ?? 5);
const SENDS = Number(process.env.AB_SENDS ?? 3000);
const WARMUP = Number(process.env.AB_WARMUP ?? 2000);
const COUNT = process.env.AB_COUNT === '1';

interface Target { label: string; kind: string; child: ChildProcess; port: number; key: string; to: string[]; countFile?: string }

async function start(spec: string, scratch: string): Promise<Target> {
  const [, label, kind, root] = /^([^=]+)=([^@]+)@(.+)$/.exec(spec) ?? [];
  if (!label || !kind || !root) throw new Error(`AB_TARGETS entry ${spec}: expected label=kind@root`);
  const countFile = COUNT ? join(scratch, `${label}.json`) : undefined;
  const child = spawn(process.execPath, [...(COUNT ? ['--require', join(root, 'bench/support/count-statements.cjs')] : []), join(root, 'bench/dist/rest-send/target.js'), kind], {
    stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...(countFile ? { COUNT_STATEMENTS_OUT: countFile } : {}) },
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${label} exited with ${code}`)));
  });
  const info = JSON.parse(line) as { port: number; key?: string; to?: string[] };
  return { label, kind, child, port: info.port, key: info.key ?? 'bench', to: info.to ?? ['5511970000002'], ...(countFile ? { countFile } : {}) };
}

/** Sends `amount` to a target and waits for its queue to be empty; answers the CPU µs it used per send. */
async function pass(target: Target, amount: number): Promise<number> {
  const before = cpuMicrosOf(target.child.pid!);
  const result = await sendLoad(`http://127.0.0.1:${target.port}`, target.key, target.to, { connections: 100, amount, timeout: 120 });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${target.label}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  if (target.kind.startsWith('parley')) await queueDrained(`http://127.0.0.1:${target.port}`, target.key);
  return (cpuMicrosOf(target.child.pid!) - before) / result.requests.total;
}

const signalled = async (target: Target, signal: NodeJS.Signals): Promise<void> => {
  target.child.kill(signal);
  await new Promise((resolve) => setTimeout(resolve, 200));
};

const load = () => loadavg().map((x) => x.toFixed(1)).join(' ');
const specs = (process.env.AB_TARGETS ?? '').split(',').filter(Boolean);
if (specs.length < 1) throw new Error('AB_TARGETS: label=kind@root,… (kind: parley or fair-baseline)');
const scratch = mkdtempSync(join(tmpdir(), 'parley-cpu-ab-'));
const targets: Target[] = [];
try {
  for (const spec of specs) targets.push(await start(spec, scratch));
  for (const target of targets) await pass(target, WARMUP);
  console.log(`load average at the start: ${load()}`);
  if (COUNT) {
    for (const target of targets) {
      await signalled(target, 'SIGUSR2');
      await pass(target, SENDS);
      await signalled(target, 'SIGUSR1');
      const counts = JSON.parse(readFileSync(target.countFile!, 'utf8')) as { byKind: Record<string, number>; statements: { sql: string; kind: string; calls: number; ms: number }[] };
      const per = (calls: number) => (calls / SENDS).toFixed(2);
      const total = Object.values(counts.byKind).reduce((a, b) => a + b, 0);
      console.log(`\n${target.label}: ${per(total)} statements per send over ${SENDS} sends; ${Object.entries(counts.byKind).map(([k, n]) => `${k} ${per(n)}`).join(', ')}`);
      for (const s of counts.statements) {
        const ms = s.ms > 0 ? `${(s.ms / s.calls).toFixed(2).padStart(7)} ms ` : '';
        console.log(`  ${per(s.calls).padStart(6)}  ${s.kind.padEnd(18)} ${ms}${s.sql}`);
      }
    }
  } else {
    const cpu = new Map(targets.map((t) => [t.label, [] as number[]]));
    for (let round = 0; round < ROUNDS; round++) {
      const order = targets.map((_, i) => targets[(i + round) % targets.length]!);
      for (const target of order) cpu.get(target.label)!.push(await pass(target, SENDS));
      console.log(`round ${round + 1} (load ${load()}): ${targets.map((t) => `${t.label} ${Math.round(cpu.get(t.label)![round]!)}`).join(', ')} µs/send`);
    }
    const reference = cpu.get(targets[0]!.label)!;
    for (const target of targets) {
      const own = cpu.get(target.label)!;
      const ratios = own.map((x, i) => x / reference[i]!);
      console.log(`${target.label}: median ${Math.round(percentile(own, 50))} µs/send; ÷ ${targets[0]!.label} per round ${ratios.map((r) => r.toFixed(2)).join(', ')} (median ${percentile(ratios, 50).toFixed(2)})`);
    }
    for (let a = 1; a < targets.length; a++) for (let b = a + 1; b < targets.length; b++) {
      const ratios = cpu.get(targets[b]!.label)!.map((x, i) => x / cpu.get(targets[a]!.label)![i]!);
      console.log(`${targets[b]!.label} ÷ ${targets[a]!.label} per round ${ratios.map((r) => r.toFixed(2)).join(', ')} (median ${percentile(ratios, 50).toFixed(2)})`);
    }
  }
  console.log(`load average at the end: ${load()}`);
} finally {
  for (const target of targets) target.child.kill('SIGTERM');
  rmSync(scratch, { recursive: true, force: true });
}
