/**
 * Lists the top items of `.cpuprofile` files (from ./profile.ts or `node --cpu-prof`): self time by
 * function and by area (a package or plugin, a dependency, Node's internals), a native call's time
 * booked on the script function that made it, idle time and the profiler's own left out of the shares.
 * Run: `node bench/dist/webhooks/profile-summary.js <file>… [rows, default 25]` (several files add up).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
const files = args.filter((arg) => arg.endsWith('.cpuprofile'));
if (files.length === 0) throw new Error('usage: profile-summary <file.cpuprofile>… [rows]');
const rows = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 25);

/** A path shortened to what names it: `packages/webhooks/…`, `node_modules/undici/…`, `node:net`. */
const place = (url: string) => url.replace(/^file:\/\/.*?\/(packages|plugins|bench|node_modules)\//, '$1/');
/** The area of a frame: its workspace package or dependency, `node:*` as Node, natives by name. */
function area(url: string, name: string): string {
  const path = place(url);
  if (!path) return name.startsWith('(') ? name : '(native)';
  if (path.startsWith('node:')) return `node (${path.slice(5).split('/').slice(-1)[0]})`;
  const parts = path.split('/');
  return parts[0] === 'node_modules' ? `dep ${parts[1]!.startsWith('@') ? `${parts[1]}/${parts[2]}` : parts[1]}` : `${parts[0]}/${parts[1]}`;
}

const byFunction = new Map<string, number>();
const byArea = new Map<string, number>();
let busy = 0;

function add(file: string): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  /**
   * The frame a sample's time is booked on: a native frame (no script: a C++ binding such as
   * better-sqlite3's `run`, a syscall) is booked on the nearest script frame that called it.
   */
  const booked = (id: number): { frame: ProfileNode['callFrame']; native: boolean } => {
    const own = nodes.get(id)!.callFrame;
    if (own.url || own.functionName.startsWith('(')) return { frame: own, native: false };
    for (let up = parents.get(id); up !== undefined; up = parents.get(up)) {
      const frame = nodes.get(up)!.callFrame;
      if (frame.url) return { frame, native: true };
    }
    return { frame: own, native: false };
  };
  for (let i = 0; i < profile.samples.length; i++) {
    const { frame, native } = booked(profile.samples[i]!);
    // Idle time, and the profiler's own (stopping it serialises the profile), are not the run's work.
    if (frame.functionName === '(idle)' || frame.url === 'node:inspector') continue;
    const us = profile.timeDeltas[i] ?? 0;
    busy += us;
    const name = `${native ? 'native, called by ' : ''}${frame.functionName || '(anonymous)'} ${place(frame.url)}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    const where = area(frame.url, frame.functionName);
    byArea.set(where, (byArea.get(where) ?? 0) + us);
  }
}

function print(title: string, totals: Map<string, number>): void {
  console.log(`\n${title} (busy ${(busy / 1000).toFixed(0)} ms):`);
  for (const [name, us] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    console.log(`${((100 * us) / busy).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(1).padStart(7)} ms  ${name}`);
  }
}

for (const file of files) add(file);
print('Self time by area', byArea);
print('Self time by function', byFunction);
