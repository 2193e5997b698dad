import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { describe, it } from 'node:test';
import { FakeClock } from '@parley/testkit';
import { MemoryStorage } from '@parley/storage-memory';
import { StorageCopyError } from '../src/index.js';
import { SERVER_PRESENCE_NAMESPACE } from '../src/presence/presence-record.js';
import { ServerPresence } from '../src/presence/server-presence.js';
import { copy, filledSource } from './storage-copy-support.js';
import { silentLogger } from './support.js';

/** A server's presence in `storage`, beating when the test says (its timer is a second: the watch beats it first). */
async function serverOn(storage: MemoryStorage): Promise<ServerPresence> {
  const presence = new ServerPresence(storage.state, new FakeClock(), silentLogger(), { version: '9.9.9' }, { heartbeatMs: 1_000, stopWaitMs: 50 });
  await presence.start();
  await presence.listening('http://127.0.0.1:9');
  return presence;
}

const SERVER = new RegExp(`host ${hostname()}, pid ${process.pid} \\(http://127\\.0\\.0\\.1:9\\), Parley 9\\.9\\.9, started 2030-01-01T00:00:00\\.000Z`);

describe('copyStorage refuses a store a server holds (its presence record beats)', () => {
  it('refuses a source a server runs on, naming it and how to stop it, before opening the target; copies once it stopped', async () => {
    const { source, record } = await filledSource();
    const server = await serverOn(source);
    const target = new MemoryStorage();
    const refused = await copy(source, target, { sleep: () => server.beat() });
    assert.ok(refused.error instanceof StorageCopyError && refused.error.reason === 'refused');
    assert.match(refused.error.message, /^nothing copied: a Parley server is running on the source \(memory\): /);
    assert.match(refused.error.message, SERVER);
    assert.match(refused.error.message, /Stop it \(SIGTERM or Ctrl-C: it stops gracefully and clears its presence record; on a cluster, every node\), then run the copy again$/);
    assert.equal(refused.opened, 0);
    await server.stop();
    const copied = await copy(source, target, { sleep: async () => assert.fail('no record left to watch') });
    assert.equal(copied.error, undefined);
    assert.deepEqual(copied.summary!.instances.map((c) => c.id), [record.id]);
  });

  it('refuses a target a server runs on, writing nothing to it', async () => {
    const { source } = await filledSource();
    const target = new MemoryStorage();
    const server = await serverOn(target);
    const refused = await copy(source, target, { sleep: () => server.beat() });
    assert.match((refused.error as Error).message, /^nothing copied: a Parley server is running on the target \(memory\): /);
    assert.deepEqual(await target.instances.list(), []);
    await server.stop();
  });

  it('copies past the record of a server killed without stopping, saying so, and never copies presence records', async () => {
    const { source, record } = await filledSource();
    await source.state.put(SERVER_PRESENCE_NAMESPACE, 'old-host:4242:0badf00d', {
      host: 'old-host', pid: 4242, version: '0.9.0', startedAt: 0, heartbeatAt: 0, heartbeatMs: 5_000, beats: 7,
    });
    const progress: string[] = [];
    let polls = 0;
    const copied = await copy(source, new MemoryStorage(), { sleep: async () => void polls++, progress: (line) => progress.push(line) });
    assert.equal(copied.error, undefined);
    assert.equal(polls, 10, 'watched for two heartbeats and a half');
    assert.ok(progress.includes('the source holds 1 server presence record(s): watching them for 13 s to tell a running server from a stopped one'), progress.join('\n'));
    assert.ok(progress.includes('the source\'s presence record of a server (host old-host, pid 4242, Parley 0.9.0, started 1970-01-01T00:00:00.000Z) did not change: '
      + 'a server that stopped without clearing it (killed or crashed); copying'), progress.join('\n'));
    assert.deepEqual(copied.summary!.state, { namespaces: 2, documents: 2 }, 'the instance\'s and the sandbox\'s, not the servers\'');
    assert.equal(copied.summary!.instances[0]!.id, record.id);
  });

  it('refuses, after copying, a server that started on the source meanwhile: what it wrote may be missing', async () => {
    const { source } = await filledSource();
    const target = new MemoryStorage();
    let started: Promise<ServerPresence> | undefined;
    const refused = await copy(source, target, {
      progress: (line) => {
        if (line.startsWith('copying ')) started = serverOn(source);
      },
    });
    assert.match((refused.error as Error).message, /^a Parley server started on the source \(memory\) while copying: /);
    assert.match((refused.error as Error).message, /What it wrote meanwhile may be missing from the target: stop it and run the copy again \(a re-run converges\)$/);
    assert.equal((await target.instances.list()).length, 1, 'the copy itself was made');
    await (await started!).stop();
  });
});
