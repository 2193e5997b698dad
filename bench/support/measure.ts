/** Small helpers shared by the benchmarks: timing, percentiles, tables, another process's memory and CPU. */
import { readFileSync } from 'node:fs';

/** Runs `fn` `count` times (awaiting each) and answers operations per second. */
export async function opsPerSecond(count: number, fn: (i: number) => Promise<unknown> | unknown): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i++) await fn(i);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return Math.round(count / seconds);
}

/** The p-th percentile (0–100) of a list of numbers. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** A markdown table. */
export function table(headers: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Resident set size in MiB. */
export function rssMiB(): number {
  return Math.round((process.memoryUsage().rss / 1048576) * 10) / 10;
}

/** Machine line for result headers. */
export function machine(): string {
  return `node ${process.version}, ${(process.env.BENCH_MACHINE ?? '2 cores, 24 GiB')}`;
}

/** Resident set size of another process (by pid), in MiB. */
export function rssMiBOf(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

/** CPU time (user + system) another process (by pid) has used so far, in microseconds. */
export function cpuMicrosOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100; // clock ticks of 10 ms
}
