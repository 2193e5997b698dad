import assert from 'node:assert/strict';
import { hostname } from 'node:os';
import { describe, it } from 'node:test';
import type { StateRepository } from '@parley/core';
import { FakeClock } from '@parley/testkit';
import { MemoryStorage } from '@parley/storage-memory';
import { SERVER_PRESENCE_NAMESPACE, type ServerPresenceRecord } from '../src/presence/presence-record.js';
import { watchServers } from '../src/presence/presence-watch.js';
import { ServerPresence } from '../src/presence/server-presence.js';
import { captureLogger, silentLogger } from './support.js';

const HEARTBEAT = 1_000;

/** A state repository of a fresh memory store, and a presence beating into it (no timer: the test beats). */
function presenceIn(state: StateRepository, clock = new FakeClock()) {
  return new ServerPresence(state, clock, silentLogger(), { version: '1.2.3', node: 'node-a' }, { heartbeatMs: HEARTBEAT, stopWaitMs: 50 });
}

async function memoryState(): Promise<StateRepository> {
  const storage = new MemoryStorage();
  await storage.init();
  return storage.state;
}

describe('ServerPresence: a running server\'s record in the storage', () => {
  it('is written at start with who and where the server is, rewritten at each beat, and deleted at stop', async () => {
    const state = await memoryState();
    const clock = new FakeClock();
    const presence = presenceIn(state, clock);
    await presence.start();
    const written = await state.get<ServerPresenceRecord>(SERVER_PRESENCE_NAMESPACE, presence.id);
    assert.deepEqual(written, {
      host: hostname(), pid: process.pid, version: '1.2.3', node: 'node-a', startedAt: FakeClock.START, heartbeatAt: FakeClock.START, heartbeatMs: HEARTBEAT, beats: 1,
    });
    assert.match(presence.id, new RegExp(`^${hostname()}:${process.pid}:[0-9a-f]{8}$`));
    clock.advance(HEARTBEAT);
    await presence.listening('http://127.0.0.1:8080');
    assert.deepEqual(await state.get(SERVER_PRESENCE_NAMESPACE, presence.id), { ...written, url: 'http://127.0.0.1:8080', heartbeatAt: FakeClock.START + HEARTBEAT, beats: 2 });
    await presence.stop();
    assert.deepEqual(await state.list(SERVER_PRESENCE_NAMESPACE), []);
    await presence.beat();
    assert.deepEqual(await state.list(SERVER_PRESENCE_NAMESPACE), [], 'nothing is written once stopped');
  });

  it('logs a write that fails and goes on beating', async () => {
    const state = await memoryState();
    let failing = true;
    // The memory store's repository, its writes failing while `failing` holds.
    const flaky: StateRepository = Object.assign(Object.create(state) as StateRepository, {
      put: async (...args: Parameters<StateRepository['put']>) => {
        if (failing) throw new Error('storage unreachable');
        return state.put(...args);
      },
    });
    const { logger, lines } = captureLogger();
    const presence = new ServerPresence(flaky, new FakeClock(), logger, { version: '1' }, { heartbeatMs: HEARTBEAT, stopWaitMs: 50 });
    await presence.start();
    assert.ok(lines.some((line) => line.includes('presence record could not be written') && line.includes('storage unreachable')), lines.join('\n'));
    failing = false;
    await presence.beat();
    assert.equal((await state.get<ServerPresenceRecord>(SERVER_PRESENCE_NAMESPACE, presence.id))?.beats, 2);
    await presence.stop();
  });

  it('does not hold a shutdown up when the store does not answer: the record is left, said in the log', async () => {
    const state = await memoryState();
    const stuck: StateRepository = Object.assign(Object.create(state) as StateRepository, { delete: () => new Promise<boolean>(() => {}) });
    const { logger, lines } = captureLogger();
    const presence = new ServerPresence(stuck, new FakeClock(), logger, { version: '1' }, { heartbeatMs: HEARTBEAT, stopWaitMs: 50 });
    await presence.start();
    await presence.stop();
    assert.ok(lines.some((line) => line.includes('presence record was not deleted within 50 ms')), lines.join('\n'));
    assert.equal((await state.list(SERVER_PRESENCE_NAMESPACE)).length, 1);
  });

  it('waits, in all, no longer than stopWaitMs — or the shutdown\'s time left, when shorter — for a beat under way and the delete', async () => {
    const state = await memoryState();
    const { logger, lines } = captureLogger();
    for (const [stopWaitMs, maxWaitMs, bound] of [[300, undefined, 300], [300, 100, 100]] as const) {
      let writes = 0;
      // The first write (the start's) answers; then the store goes silent: a beat hangs, so does the delete.
      const silent: StateRepository = Object.assign(Object.create(state) as StateRepository, {
        put: (...args: Parameters<StateRepository['put']>) => (writes++ === 0 ? state.put(...args) : new Promise<void>(() => {})),
        delete: () => new Promise<boolean>(() => {}),
      });
      const presence = new ServerPresence(silent, new FakeClock(), logger, { version: '1' }, { heartbeatMs: HEARTBEAT, stopWaitMs });
      await presence.start();
      void presence.beat();
      const started = performance.now();
      await presence.stop(maxWaitMs);
      const took = performance.now() - started;
      assert.ok(took >= bound - 20 && took < bound + 150, `stop took ${Math.round(took)} ms for a bound of ${bound} ms`);
      assert.ok(lines.some((line) => line.includes(`presence record was not deleted within ${bound} ms`)), lines.join('\n'));
    }
  });

  it('deletes, in the background of its start, the records of servers that died without clearing them, and no running server\'s', async () => {
    const state = await memoryState();
    await state.put(SERVER_PRESENCE_NAMESPACE, 'old-host:7:dead', { host: 'old-host', pid: 7, version: '0.1', startedAt: 0, heartbeatAt: 0, heartbeatMs: HEARTBEAT, beats: 3 });
    const running = presenceIn(state);
    await running.beat();
    const { logger, lines } = captureLogger();
    const starting = new ServerPresence(state, new FakeClock(), logger, { version: '1' }, { heartbeatMs: HEARTBEAT, stopWaitMs: 50, sleep: () => running.beat() });
    assert.equal(await starting.pruneStale(), 1);
    assert.deepEqual((await state.list(SERVER_PRESENCE_NAMESPACE)).map((d) => d.id).sort(), [running.id].sort());
    assert.ok(lines.some((line) => line.includes('presence records of servers that stopped without clearing them deleted') && line.includes('"pruned":1')), lines.join('\n'));
  });

  it('ends that watch at once when the server stops', async () => {
    const state = await memoryState();
    // A minute's heartbeat: the watch would last two minutes and a half.
    await state.put(SERVER_PRESENCE_NAMESPACE, 'old-host:7:dead', { host: 'old-host', pid: 7, version: '0.1', startedAt: 0, heartbeatAt: 0, heartbeatMs: 60_000, beats: 3 });
    const presence = new ServerPresence(state, new FakeClock(), silentLogger(), { version: '1' });
    await presence.start();
    const started = performance.now();
    await presence.stop();
    assert.ok(performance.now() - started < 1_000, 'stopped without waiting for the watch');
    assert.deepEqual((await state.list(SERVER_PRESENCE_NAMESPACE)).map((d) => d.id), ['old-host:7:dead'], 'nothing deleted by a watch cut short');
  });
});

describe('watchServers: telling a running server from a stopped one by its record', () => {
  it('answers at once, without waiting, when no server has a record', async () => {
    let slept = 0;
    const verdict = await watchServers(await memoryState(), { sleep: async () => void slept++, watching: () => assert.fail('nothing to watch') });
    assert.deepEqual(verdict, { running: [], stale: [] });
    assert.equal(slept, 0);
  });

  it('finds a server whose record beats, at its first beat', async () => {
    const state = await memoryState();
    const presence = presenceIn(state);
    await presence.start();
    let polls = 0;
    const verdict = await watchServers(state, {
      sleep: async () => {
        if (++polls === 3) await presence.beat();
      },
      watching: (records, windowMs) => {
        assert.deepEqual(records.map((r) => r.id), [presence.id]);
        assert.equal(windowMs, 2.5 * HEARTBEAT);
      },
      untilRunning: true,
    });
    assert.deepEqual(verdict.running.map((r) => [r.id, r.record.beats]), [[presence.id, 2]]);
    assert.equal(polls, 3);
  });

  it('takes a record that does not change for two heartbeats and a half for a server that died, whatever the clocks say', async () => {
    const state = await memoryState();
    // A record stamped far in the future (a host whose clock runs ahead) still goes stale.
    const presence = presenceIn(state, new FakeClock(Date.UTC(2100, 0, 1)));
    await presence.start();
    let polls = 0;
    const verdict = await watchServers(state, {
      sleep: async (ms) => {
        assert.equal(ms, HEARTBEAT / 4);
        polls++;
      },
    });
    assert.deepEqual(verdict.running, []);
    assert.deepEqual(verdict.stale.map((r) => r.id), [presence.id]);
    assert.equal(polls, 10, 'two heartbeats and a half of quarter-heartbeat polls');
  });

  it('ends the watch when every record is deleted (the servers stopped), and counts a new record as a server starting', async () => {
    const state = await memoryState();
    const stopping = presenceIn(state);
    await stopping.start();
    let polls = 0;
    const stopped = await watchServers(state, {
      sleep: async () => {
        if (++polls === 2) await stopping.stop();
      },
    });
    assert.deepEqual(stopped, { running: [], stale: [] });
    assert.equal(polls, 2);
    const crashed = presenceIn(state);
    await crashed.start();
    const starting = presenceIn(state);
    const verdict = await watchServers(state, { sleep: () => starting.start(), untilRunning: true });
    assert.deepEqual(verdict.running.map((r) => r.id), [starting.id]);
  });
});
