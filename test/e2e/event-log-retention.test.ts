import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { FakeClock } from '@parley/testkit';
import { phone } from '../support/conversation.js';
import { handledAfter, sendTexts } from '../support/event-streams.js';
import { SseClient } from '../support/sse-client.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const HOUR = 3_600_000;

/**
 * The event log is durable (SQLite) across restarts and purged by its retention, with time from the
 * server's clock: a position within the retention replays after a restart; once the retention has
 * passed, the purge at start removes the entries and the stream says so with stream.gap.
 */
describe('event log durability and retention', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'parley-retention-'));
  const clock = new FakeClock();
  const start = (): Promise<TestServer> => startTestServer({
    storage: 'sqlite', dataDir, clock, config: { streams: { retentionSeconds: 2 * 3600, heartbeatSeconds: 15, maxPerInstance: 10, maxTotal: 10, bufferBytes: 262_144 } },
  });
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('replays after a restart within the retention, and signals a gap once it has passed', async () => {
    let t = await start();
    const alice = await phone(t, 'alice', '5511900000031');
    const bob = await phone(t, 'bob', '5511900000032');
    const before = t.events.filter((e) => e.instance === bob.id)[0]!.id;
    await sendTexts(t, alice, bob, ['kept one', 'kept two']);
    const logged = handledAfter(t, bob.id, before);
    await t.stop();

    clock.advance(HOUR);
    t = await start();
    const replay = new SseClient(`${t.url}/${bob.key}/events`, { 'Last-Event-ID': before });
    await t.waitFor(() => replay.events.length >= logged.length, 5000, 'the replay after the restart');
    assert.deepEqual(replay.events.slice(0, logged.length).map((f) => f.id), logged);
    assert.notEqual(replay.frames[0]!.event, 'stream.gap');
    replay.close();
    await t.stop();

    clock.advance(2 * HOUR);
    t = await start();
    const late = new SseClient(`${t.url}/${bob.key}/events`, { 'Last-Event-ID': before });
    await t.waitFor(() => late.frames.length >= 1, 5000, 'the gap notice');
    await t.settle();
    assert.equal(late.frames[0]!.event, 'stream.gap');
    assert.equal(JSON.parse(late.frames[0]!.data!).retentionSeconds, 7200);
    assert.deepEqual(late.events.filter((f) => logged.includes(f.id!)), [], 'purged entries are not replayed');
    assert.deepEqual(await t.server.context.storage.events.read({ instance: bob.id, limit: 100 }).then((e) => e.filter((x) => logged.includes(x.id))), []);
    late.close();
    await t.stop();
  });
});
