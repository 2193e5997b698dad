import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { killLeftovers, untilProcess as until } from '@parley/testkit';
import { runParley, spawnParley } from './parley-process.js';

// A process a failed test left running would keep this file's process alive: none outlives the file.
after(killLeftovers);

const TOKEN = 'cli-start-admin-token-0123456789';

describe('parley start', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'parley-start-'));
    writeFileSync(join(dir, 'parley.json'), JSON.stringify({
      host: '127.0.0.1', defaultChannel: 'sandbox', logLevel: 'warn',
      plugins: [{ package: '@parley/storage-sqlite' }, { package: '@parley/channel-sandbox' }, { package: '@parley/webhook-native' }],
    }));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('starts the server as npm start does (banner, API), serves the other commands, and exits 0 on SIGTERM', async () => {
    const env = { PARLEY_CONFIG: join(dir, 'parley.json'), PORT: '0', PARLEY_DATA_DIR: join(dir, 'data'), PARLEY_ADMIN_TOKEN: TOKEN };
    const server = spawnParley(['start'], { cwd: dir, env });
    try {
      const url = await until(() => /API {8}(http:\/\/127\.0\.0\.1:\d+)/.exec(server.stdout())?.[1], 'the banner', server, 60_000); // a loaded CI machine boots slowly
      assert.ok(server.stdout().includes('Admin      token from PARLEY_ADMIN_TOKEN'), server.stdout());
      assert.ok(!server.stdout().includes(TOKEN), 'the token is never printed');
      const created = await runParley(['--url', url, '--json', 'instances', 'create', '--name', 'started'], { cwd: dir, env: { PARLEY_ADMIN_TOKEN: TOKEN } });
      assert.equal(created.code, 0, created.stderr);
      assert.equal((JSON.parse(created.stdout) as { channel: string }).channel, 'sandbox');
    } finally {
      server.child.kill('SIGTERM');
    }
    assert.deepEqual(await server.exited, { code: 0, signal: null }, server.stderr());
    assert.equal(server.stderr(), '');
  });

  it('is installed as node_modules/.bin/parley, executable', async () => {
    const root = fileURLToPath(new URL('../../../../', import.meta.url));
    const { stdout } = await promisify(execFile)(join(root, 'node_modules', '.bin', 'parley'), ['--version'], { env: { PATH: process.env.PATH ?? '' } });
    assert.equal(stdout, '0.1.0\n');
  });

  it('exits 1 with the config error, as npm start does', async () => {
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ port: 'eighty', plugins: [] }));
    const run = await runParley(['start'], { cwd: dir, env: { PARLEY_CONFIG: join(dir, 'bad.json'), PARLEY_DATA_DIR: join(dir, 'bad-data') } });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^parley: invalid config .*bad\.json: config\.port must be integer/);
  });
});
