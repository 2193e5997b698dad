import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { serviceUrlOrSkip } from '@parley/testkit';
import { PostgresStorage } from '@parley/storage-postgres';
import { SqliteStorage } from '@parley/storage-sqlite';
import { createTestDatabase, type TestDatabase } from '@parley/storage-postgres/testing';
import { runParley as parley } from '../support/parley-cli.js';
import { ServerChild } from '../support/server-child.js';

const serverUrl = serviceUrlOrSkip('DATABASE_URL', 'parley storage copy refusing a store a server runs on');

if (serverUrl) {
  describe('parley storage copy and a real server process on the source', () => {
    let dir: string;
    let dataDir: string;
    let target: TestDatabase;
    let from: string;
    let to: string;
    let instanceId = '';

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'parley-copy-running-'));
      dataDir = join(dir, 'data');
      mkdirSync(dataDir, { mode: 0o700 });
      target = await createTestDatabase(serverUrl, 'copyrun');
      from = JSON.stringify({ package: '@parley/storage-sqlite', options: { path: join(dataDir, 'parley.db') } });
      to = JSON.stringify({ package: '@parley/storage-postgres', options: { url: target.url } });
    });

    after(async () => {
      await target?.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('is refused while the server runs, naming its host, pid and address, and writes nothing; copies at once after a graceful stop', { timeout: 120_000 }, async () => {
      const server = await ServerChild.start(dataDir);
      try {
        const created = await server.request('POST', '/admin/instances', { channel: 'sandbox', name: 'carol' }, true);
        assert.equal(created.status, 200, JSON.stringify(created.body));
        instanceId = created.body.data.id;
        const refused = await parley(dir, 'storage', 'copy', '--from', from, '--to', to);
        assert.equal(refused.code, 1, refused.stderr);
        assert.match(refused.stderr, /the source holds 1 server presence record\(s\): watching them for 13 s/);
        assert.match(refused.stderr, new RegExp(`^parley: nothing copied: a Parley server is running on the source \\(sqlite\\): host ${hostname()}, pid ${server.child.pid} `
          + '\\(http://127\\.0\\.0\\.1:\\d+\\), Parley \\d+\\.\\d+\\.\\d+, started \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\\. Stop it \\(SIGTERM or Ctrl-C', 'm'));
      } finally {
        assert.equal(await server.kill('SIGTERM'), 0, 'a graceful stop');
      }
      const storage = new PostgresStorage({ url: target.url });
      await storage.init();
      try {
        assert.deepEqual(await storage.instances.list(), [], 'the refused copy wrote nothing');
      } finally {
        await storage.close();
      }
      const copied = await parley(dir, '--json', 'storage', 'copy', '--from', from, '--to', to);
      assert.equal(copied.code, 0, copied.stderr);
      assert.doesNotMatch(copied.stderr, /presence record/, 'a stopped server leaves no record to watch');
      assert.deepEqual((JSON.parse(copied.stdout) as { instances: { id: string }[] }).instances.map((c) => c.id), [instanceId]);
    });

    it('copies past the record a server killed with SIGKILL left, once it has watched it stay still', { timeout: 120_000 }, async () => {
      const server = await ServerChild.start(dataDir);
      const pid = server.child.pid;
      assert.equal(await server.kill('SIGKILL'), 'SIGKILL');
      const started = performance.now();
      const copied = await parley(dir, '--json', 'storage', 'copy', '--from', from, '--to', to);
      assert.equal(copied.code, 0, copied.stderr);
      assert.ok(performance.now() - started >= 12_500, 'it watched two heartbeats and a half');
      // Its address may be missing: SQLite commits writes in groups, and the kill may come before the one that added it.
      assert.match(copied.stderr, new RegExp(`the source's presence record of a server \\(host ${hostname()}, pid ${pid}(?: \\(http://127\\.0\\.0\\.1:\\d+\\))?, `
        + 'Parley [\\d.]+, started [^)]+\\) did not change: a server that stopped without clearing it \\(killed or crashed\\); copying'));
      assert.deepEqual((JSON.parse(copied.stdout) as { instances: { id: string }[] }).instances.map((c) => c.id), [instanceId]);
    });

    it('a server started again deletes the dead one\'s record in the background: after its graceful stop a copy watches nothing', { timeout: 120_000 }, async () => {
      const server = await ServerChild.start(dataDir);
      // The test reads the same SQLite file beside the server (WAL).
      const storage = new SqliteStorage({ file: join(dataDir, 'parley.db') });
      await storage.init();
      try {
        const deadline = performance.now() + 40_000;
        let ids: string[] = [];
        while (performance.now() < deadline) {
          ids = (await storage.state.list('parley.servers')).map((document) => document.id);
          if (ids.length === 1 && ids[0]!.includes(`:${server.child.pid}:`)) break;
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
        assert.equal(ids.length, 1, `only the running server's record is left: ${ids.join(', ')}`);
      } finally {
        await storage.close();
        assert.equal(await server.kill('SIGTERM'), 0);
      }
      const copied = await parley(dir, 'storage', 'copy', '--from', from, '--to', to);
      assert.equal(copied.code, 0, copied.stderr);
      assert.doesNotMatch(copied.stderr, /presence record/);
    });
  });
}
