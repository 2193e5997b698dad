import { readFileSync, writeFileSync } from 'node:fs';

/** A figure of `/proc/<pid>/status` given in kB, in bytes. */
function statusBytes(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const kb = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) * 1024;
}

/** Peak resident memory of a process so far (Linux `VmHWM`), in bytes. */
export function peakRss(pid: number): number {
  return statusBytes(pid, 'VmHWM');
}

/**
 * Starts a process's peak resident memory again from what it holds now (Linux `clear_refs` 5), so that
 * a later {@link peakRss} shows what happened since, not an earlier peak (start-up's); answers that RSS.
 */
export function resetPeakRss(pid: number): number {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
  return statusBytes(pid, 'VmRSS');
}
