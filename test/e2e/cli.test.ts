import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { killLeftovers, spawnNode, untilProcess, type NodeProcess } from '@parley/testkit';
import { SERVER_BIN } from '../support/server-bin.js';

// A process a failed test left running would keep this file's process alive: none outlives the file.
after(killLeftovers);

/** What `npm start` runs. */
function run(env: Record<string, string>): NodeProcess {
  return spawnNode(SERVER_BIN, [], { env });
}

const until = untilProcess;

/** Permission bits of a data directory and of the files in it. */
function privateModes(dataDir: string): Record<string, number> {
  const modes: Record<string, number> = { dir: statSync(dataDir).mode & 0o777 };
  for (const name of readdirSync(dataDir)) modes[name] = statSync(join(dataDir, name)).mode & 0o777;
  return modes;
}

/**
 * Once `proc` serves: a request whose body never ends, which keeps a graceful stop waiting (up to
 * `shutdownTimeoutMs`, 10 s by default) until the socket is destroyed.
 */
async function heldRequest(proc: NodeProcess): Promise<Socket> {
  const url = new URL(await until(() => /API {8}(http:\/\/127\.0\.0\.1:\d+)/.exec(proc.stdout())?.[1], 'the banner', proc));
  const socket = connect(Number(url.port), url.hostname);
  socket.on('error', () => undefined);
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write('POST /admin/instances HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer cli-admin-token-0123456789\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
  await new Promise((r) => setTimeout(r, 200));
  return socket;
}

describe('the parley CLI', () => {
  let dir: string;
  let configPath: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'parley-cli-'));
    configPath = join(dir, 'parley.json');
    writeFileSync(configPath, JSON.stringify({
      host: '127.0.0.1', defaultChannel: 'sandbox', logLevel: 'warn',
      plugins: [{ package: '@parley/storage-sqlite' }, { package: '@parley/channel-sandbox' }, { package: '@parley/webhook-native' }],
    }));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('starts from PARLEY_CONFIG and the environment, prints the banner, serves, and exits 0 on SIGTERM', async () => {
    const dataDir = join(dir, 'env-data');
    const proc = run({ PARLEY_CONFIG: configPath, PORT: '0', PARLEY_DATA_DIR: dataDir, PARLEY_ADMIN_TOKEN: 'cli-admin-token-0123456789', PARLEY_ALLOW_PRIVATE_URLS: '1' });
    try {
      const url = await until(() => /API {8}(http:\/\/127\.0\.0\.1:\d+)/.exec(proc.stdout())?.[1], 'the banner', proc);
      const banner = proc.stdout();
      assert.ok(banner.includes(`Docs       ${url}/docs   (OpenAPI: ${url}/openapi.json)`), banner);
      assert.ok(banner.includes(`Storage    sqlite ${join(dataDir, 'parley.db')}   data dir: ${dataDir}`), banner);
      assert.ok(!banner.includes('Cluster'), 'a single server is no cluster node');
      assert.ok(banner.includes('Channels   sandbox   (default: sandbox)'), banner);
      assert.ok(banner.includes('Webhooks   formats native   private URLs ALLOWED'), banner);
      assert.ok(banner.includes('Admin      token from PARLEY_ADMIN_TOKEN'), banner);
      assert.ok(!banner.includes('cli-admin-token-0123456789'), 'an environment token is never printed');

      assert.equal((await fetch(`${url}/healthz`)).status, 200);
      const list = await fetch(`${url}/admin/instances`, { headers: { authorization: 'Bearer cli-admin-token-0123456789' } });
      assert.deepEqual(await list.json(), { status: 200, data: [] });
      assert.ok(existsSync(join(dataDir, 'parley.db')));
      assert.equal(existsSync(join(dataDir, 'admin-token')), false);
    } finally {
      proc.child.kill('SIGTERM');
    }
    assert.deepEqual(await proc.exited, { code: 0, signal: null });
    assert.equal(proc.stderr(), '');
  });

  it('without PARLEY_ADMIN_TOKEN generates one into the private data directory and, stdout being a pipe, prints where it is instead', async () => {
    const dataDir = join(dir, 'generated');
    const file = join(dataDir, 'admin-token');
    const first = run({ PARLEY_CONFIG: configPath, PORT: '0', PARLEY_DATA_DIR: dataDir });
    let token: string;
    try {
      await until(() => (first.stdout().includes('(not shown: stdout is not a terminal') ? true : undefined), 'the banner', first);
      assert.ok(first.stdout().includes(`  Admin      token generated and saved to ${file}\n             (not shown: stdout is not a terminal; read it from the file)\n`), first.stdout());
      token = readFileSync(file, 'utf8').trim();
      assert.match(token, /^[A-Za-z0-9_-]{43}$/);
      assert.ok(!first.stdout().includes(token) && !first.stderr().includes(token), 'the token is not printed to a pipe');
      const url = /API {8}(http:\/\/127\.0\.0\.1:\d+)/.exec(first.stdout())![1]!;
      const listed = await fetch(`${url}/admin/instances`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(listed.status, 200, await listed.text());
      // Written through: the WAL and its index exist while the server runs.
      assert.deepEqual(privateModes(dataDir), { dir: 0o700, 'admin-token': 0o600, 'parley.db': 0o600, 'parley.db-wal': 0o600, 'parley.db-shm': 0o600 });
    } finally {
      first.child.kill('SIGTERM');
    }
    assert.deepEqual(await first.exited, { code: 0, signal: null }, `first run: ${first.stderr()}${first.stdout()}`);

    // Modes loosened by hand (or left by an older Parley) are tightened at the next start, and logged.
    chmodSync(dataDir, 0o755);
    for (const name of ['admin-token', 'parley.db']) chmodSync(join(dataDir, name), 0o644);
    const second = run({ PARLEY_CONFIG: configPath, PORT: '0', PARLEY_DATA_DIR: dataDir });
    try {
      await until(() => (second.stdout().includes('Admin      token in') ? true : undefined), 'the second banner', second);
      assert.ok(second.stdout().includes(`Admin      token in ${file}`));
      assert.ok(!second.stdout().includes(token!), 'shown only when generated');
      const warnings = second.stdout().split('\n').filter((line) => line.startsWith('{')).map((line) => (JSON.parse(line) as { msg: string }).msg);
      assert.deepEqual(warnings, [
        'data directory was open to other users: permissions tightened to 0700',
        'admin token file was readable by other users: permissions tightened to 0600',
        'sqlite files were readable by other users: permissions tightened to 0600',
      ]);
      assert.deepEqual(privateModes(dataDir), { dir: 0o700, 'admin-token': 0o600, 'parley.db': 0o600, 'parley.db-wal': 0o600, 'parley.db-shm': 0o600 });
    } finally {
      second.child.kill('SIGTERM');
    }
    assert.deepEqual(await second.exited, { code: 0, signal: null }, `second run: ${second.stderr()}${second.stdout()}`);
  });

  it('stops gracefully (exit 0) on a SIGTERM sent the moment the banner is out', async () => {
    // The signal handlers are installed before the server listens: a SIGTERM that beat them killed the
    // process outright (signal SIGTERM, no graceful stop), which made this file's tests flaky under load.
    const runs = Array.from({ length: 4 }, (_, i) => {
      const proc = run({ PARLEY_CONFIG: configPath, PORT: '0', PARLEY_DATA_DIR: join(dir, `prompt-${i}`), PARLEY_ADMIN_TOKEN: 'cli-admin-token-0123456789' });
      proc.child.stdout!.on('data', () => {
        if (proc.stdout().includes('Admin      token')) proc.child.kill('SIGTERM');
      });
      return proc;
    });
    for (const proc of runs) assert.deepEqual(await proc.exited, { code: 0, signal: null }, `${proc.stderr()}${proc.stdout()}`);
  });

  it('stops once, gracefully, when a second signal follows the first at once (Ctrl-C reaching the process and its wrapper script)', async () => {
    const proc = run({ PARLEY_CONFIG: configPath, PORT: '0', PARLEY_DATA_DIR: join(dir, 'repeated'), PARLEY_ADMIN_TOKEN: 'cli-admin-token-0123456789', LOG_LEVEL: 'info' });
    const socket = await heldRequest(proc);
    proc.child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 20));
    proc.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(proc.child.exitCode, null, 'still shutting down: the request holds it');
    socket.destroy();
    assert.deepEqual(await proc.exited, { code: 0, signal: null }, `${proc.stderr()}${proc.stdout()}`);
    const messages = proc.stdout().split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { msg: string; signal?: string });
    assert.deepEqual(messages.filter((m) => m.signal).map((m) => [m.signal, m.msg]), [
      ['SIGINT', 'shutting down'], ['SIGTERM', 'signal repeated at once: already shutting down'],
    ]);
    assert.equal(messages.at(-1)!.msg, 'shutdown complete');
  });

  it('exits 1 at once on a second signal sent a second or more after the first, while a request holds the shutdown', async () => {
    const proc = run({ PARLEY_CONFIG: configPath, PORT: '0', PARLEY_DATA_DIR: join(dir, 'insisted'), PARLEY_ADMIN_TOKEN: 'cli-admin-token-0123456789' });
    const socket = await heldRequest(proc);
    proc.child.kill('SIGINT');
    await new Promise((r) => setTimeout(r, 1300));
    assert.equal(proc.child.exitCode, null, 'still shutting down: the request holds it');
    const insisted = performance.now();
    proc.child.kill('SIGINT');
    assert.deepEqual(await proc.exited, { code: 1, signal: null }, `${proc.stderr()}${proc.stdout()}`);
    assert.ok(performance.now() - insisted < 5000, 'exits without waiting for the shutdown timeout');
    assert.ok(proc.stdout().includes('"msg":"second signal: exiting now"'), proc.stdout());
    socket.destroy();
  });

  it('exits 1 naming the field of an invalid config file', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ port: 'eighty', plugins: [{ options: {} }] }));
    const proc = run({ PARLEY_CONFIG: bad, PARLEY_DATA_DIR: join(dir, 'bad-data') });
    assert.deepEqual(await proc.exited, { code: 1, signal: null });
    assert.equal(proc.stderr(), `parley: invalid config ${bad}: config.port must be integer; config.plugins[0].package is required\n`);
    assert.equal(proc.stdout(), '');
  });

  it('exits 1 naming the plugin and the option of bad plugin options, and on a bad PORT', async () => {
    const badPlugin = join(dir, 'bad-plugin.json');
    writeFileSync(badPlugin, JSON.stringify({ plugins: [{ package: '@parley/storage-memory' }, { package: '@parley/channel-sandbox', options: { latencyMs: -5 } }] }));
    const proc = run({ PARLEY_CONFIG: badPlugin, PORT: '0', PARLEY_DATA_DIR: join(dir, 'bad-plugin-data'), PARLEY_ADMIN_TOKEN: 'cli-admin-token-0123456789' });
    assert.deepEqual(await proc.exited, { code: 1, signal: null });
    assert.equal(proc.stderr(), 'parley: plugin @parley/channel-sandbox: invalid options: options.latencyMs must be >= 0\n');

    const port = run({ PARLEY_CONFIG: configPath, PORT: 'http', PARLEY_DATA_DIR: join(dir, 'bad-port') });
    assert.deepEqual(await port.exited, { code: 1, signal: null });
    assert.equal(port.stderr(), 'parley: PORT must be an integer from 0 to 65535\n');
  });
});
