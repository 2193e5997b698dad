import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { printBanner, type BannerOutput } from '../src/app/banner.js';
import { ParleyServer } from '../src/app/parley-server.js';
import { loadConfig } from '../src/config/config.js';
import { captureLogger } from './support.js';

const root = mkdtempSync(join(tmpdir(), 'parley-secrets-'));
after(() => rmSync(root, { recursive: true, force: true }));
const mode = (path: string) => statSync(path).mode & 0o777;

/** A server on the memory store with a token generated into `dataDir`; answers it with its captured log. */
async function start(dataDir: string) {
  const captured = captureLogger('warn');
  const config = loadConfig({}, { port: 0, host: '127.0.0.1', dataDir, plugins: [{ package: '@parley/storage-memory' }, { package: '@parley/channel-sandbox' }] });
  const server = await ParleyServer.create({ config, logger: captured.logger });
  return { server, lines: captured.lines };
}

/** What printBanner writes to a stream that is (or is not) a terminal. */
function banner(server: ParleyServer, isTTY: boolean): string {
  let text = '';
  const out: BannerOutput = { isTTY, write: (chunk: string | Uint8Array) => ((text += String(chunk)), true) };
  printBanner(server, 'http://127.0.0.1:1', out);
  return text;
}

describe('secrets at rest', () => {
  it('a generated admin token is shown on a terminal only; elsewhere the banner says where it was saved', async () => {
    const dataDir = join(root, 'banner');
    const { server } = await start(dataDir);
    try {
      const path = join(dataDir, 'admin-token');
      const token = server.adminToken.value;
      assert.ok(banner(server, true).includes(`  Admin      token generated and saved to ${path}:\n             ${token}\n`));
      const piped = banner(server, false);
      assert.ok(!piped.includes(token), piped);
      assert.ok(piped.includes(`  Admin      token generated and saved to ${path}\n             (not shown: stdout is not a terminal; read it from the file)\n`), piped);
    } finally {
      await server.close();
    }
  });

  it('creates the data directory 0700 and the token file 0600 whatever the umask', async () => {
    const dataDir = join(root, 'fresh', 'data');
    const previous = process.umask(0o000);
    try {
      const { server } = await start(dataDir);
      await server.close();
    } finally {
      process.umask(previous);
    }
    assert.equal(mode(dataDir), 0o700);
    assert.equal(mode(join(dataDir, 'admin-token')), 0o600);
  });

  it('tightens a data directory and a token file that others could read, and logs each', async () => {
    const dataDir = join(root, 'loose');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    writeFileSync(join(dataDir, 'admin-token'), 'an-operator-written-token\n');
    chmodSync(join(dataDir, 'admin-token'), 0o644);
    const { server, lines } = await start(dataDir);
    await server.close();
    assert.equal(mode(dataDir), 0o700);
    assert.equal(mode(join(dataDir, 'admin-token')), 0o600);
    assert.equal(server.adminToken.value, 'an-operator-written-token');
    const warnings = lines.map((line) => JSON.parse(line) as Record<string, unknown>).map(({ msg, dataDir: dir, file }) => ({ msg, dir, file }));
    assert.deepEqual(warnings, [
      { msg: 'data directory was open to other users: permissions tightened to 0700', dir: dataDir, file: undefined },
      { msg: 'admin token file was readable by other users: permissions tightened to 0600', dir: undefined, file: join(dataDir, 'admin-token') },
    ]);
  });

  it('leaves a shared data directory (sticky bit, as /tmp) open, says so, and still keeps the token file 0600', async () => {
    const dataDir = join(root, 'sticky');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o1777);
    const { server, lines } = await start(dataDir);
    await server.close();
    assert.equal(statSync(dataDir).mode & 0o7777, 0o1777);
    assert.equal(mode(join(dataDir, 'admin-token')), 0o600);
    assert.deepEqual(lines.map((line) => (JSON.parse(line) as { msg: string }).msg), [
      'data directory is shared with other users (sticky bit, file-system root or another owner) and left as it is; its files are still 0600, but give Parley a directory of its own',
    ]);
  });
});
