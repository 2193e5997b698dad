import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { messageIdFor, type MessageRecord } from '@parley/core';
import { SendQueue, type QueuedRecord } from '../src/send/send-queue.js';
import { sendingChannel } from '../src/send/sending-channel.js';
import { JOB, LEASE_MS, outboundHarness } from './outbound-fakes.js';

/**
 * A send run under an idempotency key takes the message id of its run's seed, so a run that continues
 * one whose server died mid-request (issue 24 item 2: same seed) creates nothing twice: while the first
 * run's send is queued the queue keeps one entry, and once it was sent its record is answered and
 * nothing is sent.
 */
describe('SendQueue: a send under an idempotency key', () => {
  it('gets its seed\'s id; run again it is queued once, and once sent it is answered, not sent again', async () => {
    const { h, storage, runtime, worker, clock, policies, pacer } = await outboundHarness();
    const queue = new SendQueue({ storage, clock, policies, pacer, worker, leaseMs: LEASE_MS });
    const channel = sendingChannel(runtime);
    const request = { to: JOB.to, content: JOB.content };
    const id = messageIdFor('ins\u0000k1');
    assert.match(id, /^3EB0[0-9A-F]{18}$/);

    // Scheduled: both runs leave one entry, with the key's id.
    const later = { sendAt: new Date(h.now + 60_000).toISOString() };
    const first = await queue.accept(runtime, channel, request, later, 'k1');
    const second = await queue.accept(runtime, channel, request, later, 'k1');
    assert.equal(first.key.id, id);
    assert.equal(second.key.id, id);
    assert.equal((await storage.outbound.list('ins', { limit: 10, offset: 0 })).total, 1);
    // The second run (a minute later) is answered with the entry the first queued, not with its own.
    h.now += 60_000;
    const third = await queue.accept(runtime, channel, request, { sendAt: new Date(h.now + 60_000).toISOString() }, 'k1');
    const timing = (record: MessageRecord) => ({ at: record.messageTimestamp, dueAt: (record as QueuedRecord).queue.dueAt });
    assert.deepEqual(timing(third), timing(first));
    h.now -= 60_000;

    // Due now: it leaves inline once; a run after it was sent answers its record.
    const sent = await queue.accept(runtime, channel, request, {}, 'k2');
    const again = await queue.accept(runtime, channel, request, {}, 'k2');
    assert.equal(sent.key.id, messageIdFor('ins\u0000k2'));
    assert.deepEqual(again, sent);
    assert.deepEqual(h.sends, [sent.key.id]);
    await storage.close();
  });
});
