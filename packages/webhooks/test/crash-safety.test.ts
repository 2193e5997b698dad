import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SqliteStorage } from '@parley/storage-sqlite';
import { startHttpReceiver } from '@parley/testkit';
import { deliveryId } from '../src/index.js';
import { createInstance, engineFor, eventually, gate, initialized, recordingLogger, textEvent } from './support/harness.js';

describe('crash safety (sqlite file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-webhooks-crash-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('deliveries enqueued by an engine that dies before acking are all delivered by the next engine on the same file', async () => {
    const file = join(dir, 'parley.sqlite');
    const receiver = await startHttpReceiver();
    const held = gate();
    receiver.respond(async (request) => {
      if (request.index === 0) await held.wait;
      return {};
    });
    const url = `${receiver.url}/hook`;

    const first = await initialized(new SqliteStorage({ file }));
    const instance = await createInstance(first, { webhookMessage: url });
    const events = Array.from({ length: 5 }, (_, i) => textEvent(instance, i));
    const dying = engineFor(first, {}, { logger: recordingLogger() });
    dying.start();
    for (const event of events) await dying.handle(event, instance);
    await receiver.waitFor(1);
    // The process "dies": its database goes away while the first request is in flight, so the 200 the
    // receiver then sends is never acknowledged in storage.
    await first.close();
    held.open();
    await dying.stop();

    const second = await initialized(new SqliteStorage({ file }));
    const engine = engineFor(second);
    engine.start();
    try {
      await eventually(() => engine.stats(instance.id), (s) => s.totalPending === 0, 10_000);
      const { totalSent, totalFailed, totalPending } = await engine.stats(instance.id);
      assert.deepEqual({ totalSent, totalFailed, totalPending }, { totalSent: 5, totalFailed: 0, totalPending: 0 });
      const expected = events.map((event) => deliveryId(event.id, 'native', url));
      // The dying engine's batch (the lane's deliveries it POSTed in turn, never settled) arrives again,
      // with the same webhook-ids, from the head; then the rest, in order.
      const ids = receiver.requests.map((r) => r.headers['webhook-id']);
      const resent = ids.length - expected.length;
      assert.ok(resent >= 1, 'the unacknowledged head was sent before the crash');
      assert.deepEqual(ids, [...expected.slice(0, resent), ...expected]);
      assert.equal(receiver.requests[0]!.body, receiver.requests[resent]!.body);
    } finally {
      await engine.stop();
      await second.close();
      await receiver.close();
    }
  });
});
