import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { untilProcess as until } from '@parley/testkit';
import { startCliHost, type CliHost } from './host.js';
import { runParley, spawnParley } from './parley-process.js';

const readme = readFileSync(join(fileURLToPath(new URL('../../../..', import.meta.url)), 'README.md'), 'utf8');

/** The body of the first ```sh block after `heading`. */
function shellBlock(heading: string): string {
  const at = readme.indexOf(heading);
  assert.ok(at >= 0, `the README has "${heading}"`);
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(at))?.[1];
  assert.ok(block, `a sh block follows "${heading}"`);
  return block;
}

/** A command line's words as a POSIX shell splits them (quotes, no expansions), its comment left out. */
function words(line: string): string[] {
  const out: string[] = [];
  let word: string | undefined;
  for (const m of line.matchAll(/"([^"]*)"|'([^']*)'|(#.*$)|(\s+)|([^\s"'#]+)/g)) {
    if (m[3] !== undefined && word === undefined) break;
    if (m[4] !== undefined) {
      if (word !== undefined) out.push(word);
      word = undefined;
    } else {
      word = (word ?? '') + (m[1] ?? m[2] ?? m[3] ?? m[5]);
    }
  }
  if (word !== undefined) out.push(word);
  return out;
}

/**
 * The README's command-line example, after its quick start, against a real server: the quick start's
 * instances are created from its own request bodies (and connected, as it does), then every `npx parley`
 * line but `start` runs as written and exits 0.
 */
describe('README: the command-line example runs after the quick start as written', () => {
  let t: CliHost;
  before(async () => {
    t = await startCliHost();
  });
  after(() => t.stop());

  it('creates, connects, sends and reports with the names and numbers the README gives', async () => {
    const quickStart = shellBlock('Try it with two sandbox instances');
    const bodies = [...quickStart.matchAll(/-d '(\{"channel"[^']*\})'/g)].map((m) => JSON.parse(m[1]!) as { name: string });
    assert.deepEqual(bodies.map((b) => b.name), ['alice', 'bob']);
    for (const body of bodies) {
      const { data } = await t.host.client.call('adminCreateInstance', { body });
      await t.host.client.instance(data.key).call('connectInstance');
      await t.host.client.call('sandbox_post_key_scan', { params: { key: data.key }, body: {} });
    }

    const lines = shellBlock('## Command line').split('\n').filter((line) => line.startsWith('npx parley ')).map((line) => words(line).slice(2));
    assert.deepEqual(lines.map((args) => args[0]), ['start', 'instances', 'connect', 'send', 'webhooks', 'instances']);
    let key: string | undefined;
    for (const args of lines.slice(1)) {
      if (args[0] !== 'connect') {
        const run = await runParley([...t.flags, ...args], { cwd: t.cwd });
        assert.equal(run.code, 0, `parley ${args.join(' ')}: ${run.stderr}`);
        key ??= /^\s*key\s+(\S+)$/m.exec(run.stdout)?.[1];
        continue;
      }
      // The scan the README asks for while `connect` waits, with the key `instances create` printed.
      assert.ok(key, 'instances create printed the key');
      const proc = spawnParley([...t.flags, ...args], { cwd: t.cwd });
      await until(() => (proc.stdout().includes('waiting for the scan') ? true : undefined), 'the QR code', proc);
      await t.host.client.call('sandbox_post_key_scan', { params: { key }, body: {} });
      assert.deepEqual(await proc.exited, { code: 0, signal: null }, proc.stderr());
    }
  });
});
