import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isParleyError } from '@parley/core';
import { encodeJob } from '../src/send/outbound-job.js';
import { JOB, LEASE_MS, outboundHarness, T, untilCompleted } from './outbound-fakes.js';

/**
 * Issue 24 item 5: a message the channel took is never answered as a failure that invites a retry,
 * nor sent again. Storing its record fails once (storage failing after the send: the write is lost):
 * the inline send answers 500 `sent_not_recorded`; when the entry's lease ends the worker claims it,
 * stores the record it kept and completes the entry, and the channel was asked to send it once.
 */
describe('OutboundWorker: a send whose record could not be stored', () => {
  it('answers sent_not_recorded, then stores the record at the next claim without sending again', async () => {
    const { h, storage, runtime, worker } = await outboundHarness();
    h.failStores = 1;
    const entry = { id: 'm1', instance: 'ins', lane: `whatsapp:${JOB.remoteJid}`, dueAt: T, createdAt: T, payload: encodeJob(JOB) };
    assert.equal(await storage.outbound.enqueue(entry, 10, { now: T, leaseMs: LEASE_MS }), 'leased');

    const answer = await worker.sendInline(runtime, { ...entry, order: T, attempts: 0, leasedUntil: T + LEASE_MS }, JOB).then(() => null, (err: unknown) => err);
    assert.ok(isParleyError(answer) && answer.status === 500 && answer.code === 'sent_not_recorded', String(answer));
    assert.deepEqual(answer.details, { messageId: 'm1' });
    assert.deepEqual(h.sends, ['m1']);
    assert.ok(await storage.outbound.get('ins', 'm1'), 'the entry stays, leased, for its record to be stored');
    assert.equal(await storage.messages.get('ins', 'm1'), null);

    // The lease ends: the worker claims the entry again.
    await untilCompleted(h, storage, worker, 'm1');
    assert.equal(await storage.outbound.get('ins', 'm1'), null, 'completed');
    assert.equal((await storage.messages.get('ins', 'm1'))?.status, 'SERVER_ACK', 'the record the channel answered is stored');
    assert.deepEqual(h.sends, ['m1'], 'sent once');
    await storage.close();
  });
});
