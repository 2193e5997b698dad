import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { apiError } from '../support/api-error.js';
import { callStatuses, placeCall, startWithPhones, type Phone, type PlacedCall } from '../support/conversation.js';
import { startTestServer, type TestServer, type TestServerOptions } from '../support/test-server.js';

const ALICE = '5511960000001';
const BOB = '5511960000002';
/** Long enough for a graceful stop and a restart to fit in one ring on a loaded machine (1.5 s did not at a load average of 15), short enough to wait out. */
const RING_MS = 4000;

const sleepUntil = (time: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, time - Date.now())));

/**
 * Ring time-outs over a real restart: the server stops gracefully and starts again on the same data
 * directory, restoring both phones. The tests run in order, each continuing from the last one's server.
 */
describe('calls ringing across a server restart (sandbox callRingMs, SQLite)', () => {
  let dataDir: string;
  let options: TestServerOptions;
  let t: TestServer;
  let alice: Phone;
  let bob: Phone;

  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'parley-calls-restart-'));
    options = { storage: 'sqlite', dataDir, sandbox: { callRingMs: RING_MS } };
  });
  after(async () => {
    await t?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const place = (from: Phone, to: Phone) => placeCall(t, from, to);

  /** Starts the server again on the same data directory and waits until the phones are back. */
  const start = async () => {
    t = await startTestServer(options);
    await t.server.restored();
  };

  /**
   * A phone's stored active calls (the sandbox's `calls` state document), read from the running
   * server's storage.
   */
  const storedCalls = async (p: Phone) => (await t.server.context.storage.state.get<Record<string, { ringUntil?: number }>>(`${p.id}:sandbox`, 'calls')) ?? {};

  /** Neither phone can answer or end the call any more: it is gone from both phones' state. */
  const assertGone = async (caller: Phone, callee: Phone, callId: string) => {
    await assert.rejects(t.client(callee.key).call('acceptCall', { body: { callId, callFrom: caller.number } }), apiError(404, 'call_not_found'));
    await assert.rejects(t.client(caller.key).call('endCall', { body: { callId, peerJid: callee.number } }), apiError(404, 'call_not_found'));
  };

  it('a deadline that passes while the server is down times the call out on both phones as soon as they are back', async () => {
    ({ t, phones: { alice, bob } } = await startWithPhones({ alice: ALICE, bob: BOB }, options));

    // One call times out while the server runs: it must not time out again after the restart.
    const early = await place(alice, bob);
    await t.waitFor(() => callStatuses(t, bob, early.callId).includes('timeout'), 5000, 'the live time-out');

    const call = await place(alice, bob);
    const legacy = await place(bob, alice);
    const stored = await storedCalls(bob);
    const deadline = stored[legacy.callId]!.ringUntil!;
    assert.ok(deadline >= legacy.sentAt + RING_MS && deadline <= legacy.answeredAt + RING_MS, `ring deadline ${deadline} is the offer time plus callRingMs`);
    // The offer carried the deadline: the callee's copy times out at the same moment.
    const incoming = await storedCalls(alice);
    assert.equal(incoming[legacy.callId]!.ringUntil, deadline);
    // Calls stored before deadlines were kept have none: their ring time counts from `startedAt`.
    for (const [p, calls] of [[bob, stored], [alice, incoming]] as const) {
      delete calls[legacy.callId]!.ringUntil;
      await t.server.context.storage.state.put(`${p.id}:sandbox`, 'calls', calls);
    }

    await t.stop();
    assert.ok(Date.now() < call.sentAt + RING_MS, 'the server stopped before the ring time ran out');
    assert.deepEqual([callStatuses(t, alice, call.callId), callStatuses(t, bob, call.callId)], [['ringing'], ['offer']]);
    assert.deepEqual([callStatuses(t, bob, legacy.callId), callStatuses(t, alice, legacy.callId)], [['ringing'], ['offer']]);

    await sleepUntil(Math.max(call.answeredAt, legacy.answeredAt) + RING_MS + 100);
    await start();
    const backAt = Date.now();
    const sides: [Phone, PlacedCall][] = [[alice, call], [bob, call], [alice, legacy], [bob, legacy]];
    await t.waitFor(() => sides.every(([p, c]) => callStatuses(t, p, c.callId).length > 0), 5000, 'both calls to time out on both phones');
    assert.ok(Date.now() < backAt + RING_MS / 2, 'at once, not after another ring time');
    await t.settle();
    assert.deepEqual([callStatuses(t, alice, call.callId), callStatuses(t, bob, call.callId)], [['timeout'], ['timeout']]);
    assert.deepEqual([callStatuses(t, bob, legacy.callId), callStatuses(t, alice, legacy.callId)], [['timeout'], ['timeout']]);
    assert.deepEqual([callStatuses(t, alice, early.callId), callStatuses(t, bob, early.callId)], [[], []]);
    await assertGone(alice, bob, call.callId);
    await assertGone(bob, alice, legacy.callId);
    await assertGone(alice, bob, early.callId);
    for (const p of [alice, bob]) assert.deepEqual(await storedCalls(p), {});
  });

  it('a call still ringing when the server is back times out once, when its own ring time runs out', async () => {
    const call = await place(alice, bob);
    // Stop a while into the ring: a timer started afresh on restore would fire this much too late.
    await sleepUntil(call.answeredAt + 300);
    await t.stop();
    const restartedAt = Date.now();
    await start();
    await t.settle();
    assert.ok(Date.now() < call.sentAt + RING_MS - 200, 'the restart fitted in the ring time');
    assert.deepEqual([callStatuses(t, alice, call.callId), callStatuses(t, bob, call.callId)], [[], []], 'no time-out at once');

    await t.waitFor(() => callStatuses(t, alice, call.callId).length > 0, 5000, 'the caller to time out');
    const timedOutAt = Date.now();
    assert.ok(timedOutAt >= call.sentAt + RING_MS, 'not before the ring time ran out');
    assert.ok(timedOutAt < restartedAt + RING_MS, 'after the time the call had left, not a whole ring time again');
    await t.waitFor(() => callStatuses(t, bob, call.callId).length > 0, 5000, 'the callee to time out');
    await sleepUntil(timedOutAt + 500);
    await t.settle();
    assert.deepEqual([callStatuses(t, alice, call.callId), callStatuses(t, bob, call.callId)], [['timeout'], ['timeout']]);
    await assertGone(alice, bob, call.callId);
  });
});
