/** Small helpers shared by the benchmarks: timing, percentiles, tables. */

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
