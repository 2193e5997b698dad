/**
 * `npm run bench`: every benchmark of this folder, one after another, each in its own Node process
 * (with `--expose-gc`, which the memory figures need), with the environment it is given (REDIS_URL,
 * AMQP_URL, NATS_URL and each bench's BENCH_* variables; see RESULTS.md). Names given as arguments
 * select benches by folder: `node bench/dist/run-all.js rest-send events`. Exits non-zero when any
 * bench failed, after running the rest.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const wanted = process.argv.slice(2);
const benches = readdirSync(here, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && (wanted.length === 0 || wanted.includes(entry.name)))
  .map((entry) => join(here, entry.name, `${entry.name}.bench.js`))
  .filter((file) => existsSync(file))
  .sort();
if (benches.length === 0) {
  console.error(`no bench found${wanted.length ? ` named ${wanted.join(', ')}` : ''}: run \`npm run build\` first`);
  process.exit(1);
}
const failed: string[] = [];
for (const file of benches) {
  console.log(`\n=== ${file.slice(here.length)}`);
  const run = spawnSync(process.execPath, ['--expose-gc', file], { stdio: 'inherit', env: process.env });
  if (run.status !== 0) failed.push(file.slice(here.length));
}
if (failed.length > 0) {
  console.error(`\nfailed: ${failed.join(', ')}`);
  process.exit(1);
}
