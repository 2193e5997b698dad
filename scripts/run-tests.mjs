#!/usr/bin/env node
// Runs every compiled test file of the workspace with node's test runner.
// Usage: node scripts/run-tests.mjs [filter…]  (filters match file paths as substrings)
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const roots = ['packages', 'plugins', 'examples'].flatMap((dir) =>
  readdirSync(join(root, dir)).map((name) => join(root, dir, name, 'dist', 'test')),
);
roots.push(join(root, 'test', 'dist'));

function collect(dir, out) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path, out);
    else if (name.endsWith('.test.js')) out.push(path);
  }
  return out;
}

// An unsupported Node crashes in the SQLite binding's native code; say so instead (package.json "engines").
const { unsupportedNode } = await import('../packages/server/dist/src/node-version.js').catch(() => {
  console.error('packages/server is not built: run `npm run build` first');
  process.exit(1);
});
const { engines } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const unsupported = unsupportedNode(process.version, engines.node);
if (unsupported) {
  console.error(unsupported);
  process.exit(1);
}

const filters = process.argv.slice(2);
const files = roots.flatMap((dir) => collect(dir, [])).filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
if (files.length === 0) {
  console.error('no test files found: run `npm run build` first');
  process.exit(1);
}
console.log(`running ${files.length} test files`);
const concurrency = process.env.PARLEY_TEST_CONCURRENCY ?? '2';
// No --test-force-exit: with it, Node drops results of tests that ran from the report (nodejs/node#64833),
// so counts shrink and a failure could go unseen. The long timers Baileys leaves behind no longer hold a
// simulator suite's process (@parley/whatsapp-sim releaseBaileysTimers).
const child = spawn(process.execPath, ['--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files.map((f) => relative(root, f))], {
  cwd: root,
  stdio: 'inherit',
  env: process.env,
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
