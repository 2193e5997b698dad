import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ServiceUnavailableError } from '@parley/core';
import { SqliteStorage } from '@parley/storage-sqlite';
import { killLeftovers, spawnNode } from '@parley/testkit';
import { SERVER_BIN } from '../support/server-bin.js';

// A process a failed test left running would keep this file's process alive: none outlives the file.
after(killLeftovers);

/** What `npm start` runs. */
const PAGE = 4096;

/**
 * A Parley database of a few hundred pages of small state rows (b-tree pages only, no overflow),
 * checkpointed into the main file and closed; answers its page count.
 */
async function populated(file: string): Promise<number> {
  const storage = new SqliteStorage({ file, backgroundCheckpoints: false });
  await storage.init();
  for (let i = 0; i < 20_000; i++) await storage.state.put('ns', `row-${String(i).padStart(6, '0')}`, { i, text: 'some state worth keeping' });
  // The last connection to close checkpoints the WAL into the file and removes it.
  await storage.close();
  return statSync(file).size / PAGE;
}

/** Overwrites `count` whole pages from page `first` (1-based) with garbage. */
function damage(file: string, first: number, count = 1): void {
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, Buffer.alloc(PAGE * count, 0xa5), 0, PAGE * count, (first - 1) * PAGE);
  } finally {
    closeSync(fd);
  }
}

describe('a damaged SQLite database', () => {
  let dir: string;
  let config: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'parley-corrupt-'));
    config = join(dir, 'parley.json');
    writeFileSync(config, JSON.stringify({
      host: '127.0.0.1', logLevel: 'warn', defaultChannel: 'sandbox',
      plugins: [{ package: '@parley/storage-sqlite' }, { package: '@parley/channel-sandbox' }, { package: '@parley/webhook-native' }],
    }));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Starts the real server on `dataDir`; answers how it exited and its stderr. */
  async function start(dataDir: string): Promise<{ code: number | null; stderr: string }> {
    const proc = spawnNode(SERVER_BIN, [], { env: { PARLEY_CONFIG: config, PORT: '0', PARLEY_DATA_DIR: dataDir, PARLEY_ADMIN_TOKEN: 'corrupt-admin-token-0123456789' } });
    const exited = await proc.exited;
    return { code: exited.code, stderr: proc.stderr() };
  }

  it('damaged in its header: start-up exits 1 with one line naming the file and what to do', async () => {
    const dataDir = join(dir, 'header');
    const file = join(dataDir, 'parley.db');
    await populated(file);
    damage(file, 1);
    const { code, stderr } = await start(dataDir);
    assert.equal(code, 1);
    assert.equal(stderr.split('\n').filter(Boolean).length, 1, stderr);
    assert.ok(stderr.startsWith(`parley: start-up failed: sqlite database file ${file} is damaged: stop Parley, keep a copy of the file`), stderr);
    assert.match(stderr, /restore it from a backup or recover what is readable with `sqlite3 <file> \.recover/);
    assert.match(stderr, /SQLITE_NOTADB/);
  });

  it('damaged in the middle: the start-up integrity check finds it, and start-up exits 1 naming the file', async () => {
    const dataDir = join(dir, 'middle');
    const file = join(dataDir, 'parley.db');
    const pages = await populated(file);
    damage(file, Math.floor(pages / 2));
    const { code, stderr } = await start(dataDir);
    assert.equal(code, 1);
    assert.equal(stderr.split('\n').filter(Boolean).length, 1, stderr);
    assert.ok(stderr.startsWith(`parley: start-up failed: sqlite database file ${file} is damaged`), stderr);
    assert.match(stderr, /\(quick_check: .+\)$/m);
  });

  it('damaged after start-up: the first read that meets it answers 503, the store turns not ready with the reason, and says so once', async () => {
    const file = join(dir, 'later', 'parley.db');
    const pages = await populated(file);
    const lines: { msg: string; file?: string; level: string }[] = [];
    const log = (level: string) => (obj: Record<string, unknown>, msg: string) => lines.push({ ...obj, msg, level });
    const logger = { child: () => logger, trace() {}, debug() {}, info: log('info'), warn: log('warn'), error: log('error'), fatal: log('fatal') };
    const storage = new SqliteStorage({ file, backgroundCheckpoints: false, logger });
    await storage.init();
    try {
      assert.deepEqual(await storage.health(), { ready: true });
      damage(file, Math.floor(pages / 2), 8);
      for (let i = 0; i < 3; i++) {
        await assert.rejects(storage.state.list('ns'), (err: unknown) => err instanceof ServiceUnavailableError && /damaged: SQLITE_CORRUPT/.test(err.message));
      }
      const health = await storage.health();
      assert.equal(health.ready, false);
      assert.match(health.detail!, /^database file is damaged: SQLITE_CORRUPT/);
      const errors = lines.filter((l) => l.level === 'error');
      assert.equal(errors.length, 1, JSON.stringify(errors));
      assert.equal(errors[0]!.file, file);
      assert.match(errors[0]!.msg, /is damaged: stop Parley/);
    } finally {
      await storage.close();
    }
  });
});
