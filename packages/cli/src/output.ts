import type { CliContext } from './settings.js';

/** Writes a command's result: `data` as one JSON document with `--json`, else the human text. */
export function emit(ctx: Pick<CliContext, 'json'>, data: unknown, human: () => string): void {
  process.stdout.write(ctx.json ? `${JSON.stringify(data)}\n` : `${human()}\n`);
}

/** Columns padded to their widest cell; the header in capitals. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(headers.map((h) => h.toUpperCase())), ...rows.map(line)].join('\n');
}

/** `label  value` lines, labels padded to the widest. */
export function fields(entries: readonly (readonly [string, string])[]): string {
  const width = Math.max(...entries.map(([label]) => label.length));
  return entries.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`).join('\n');
}

/** A Unix-ms instant as ISO 8601 (UTC), or `-`. */
export function isoTime(ms: number | undefined): string {
  return ms === undefined ? '-' : new Date(ms).toISOString();
}
