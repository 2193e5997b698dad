import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeJob } from '../src/send/outbound-job.js';
import { SendQueue } from '../src/send/send-queue.js';
import { sendingChannel } from '../src/send/sending-channel.js';
import { JOB, LEASE_MS, outboundHarness, T, untilCompleted } from './outbound-fakes.js';

/**
 * An inline send the network failed, whose queue entry could not be removed (storage went away at that
 * moment): the entry stays queued and leased, and the worker sends it when the lease ends. Answering the
 * failure (or a 503, "nothing queued") would invite a retry that sends it twice: the send is answered as
 * still queued instead.
 */
describe('OutboundWorker: an inline send that failed and could not be dequeued', () => {
  it('is handed to the worker (answered as queued) and sent once when its lease ends', async () => {
    const { h, storage, runtime, worker } = await outboundHarness();
    h.failSends = 1;
    h.failCompletes = 1;
    const entry = { id: 'm1', instance: 'ins', lane: `whatsapp:${JOB.remoteJid}`, dueAt: T, createdAt: T, payload: encodeJob(JOB) };
    assert.equal(await storage.outbound.enqueue(entry, 10, { now: T, leaseMs: LEASE_MS }), 'leased');

    assert.equal(await worker.sendInline(runtime, { ...entry, order: T, attempts: 0, leasedUntil: T + LEASE_MS }, JOB), null);
    assert.ok(await storage.outbound.get('ins', 'm1'), 'still queued');

    await untilCompleted(h, storage, worker, 'm1');
    assert.equal(await storage.outbound.get('ins', 'm1'), null, 'completed');
    assert.equal((await storage.messages.get('ins', 'm1'))?.status, 'SERVER_ACK');
    assert.deepEqual(h.sends, ['m1', 'm1'], 'the failed attempt, then the one that went out');
    await storage.close();
  });

  it('through the send queue: answered 200 with its queue state even when reading it back fails', async () => {
    const { h, storage, runtime, worker, clock, policies, pacer } = await outboundHarness();
    const queue = new SendQueue({ storage, clock, policies, pacer, worker, leaseMs: LEASE_MS });
    h.failSends = 1;
    h.failCompletes = 1;
    // Storage goes away right after the failed send: the entry cannot be read back either.
    const get = storage.outbound.get.bind(storage.outbound);
    let failGets = 1;
    storage.outbound.get = async (instance, id) => {
      if (h.sends.length > 0 && failGets-- > 0) throw new Error('storage is unavailable');
      return get(instance, id);
    };
    const answer = await queue.accept(runtime, sendingChannel(runtime), { to: JOB.to, content: JOB.content }, {});
    assert.equal(answer.status, 'PENDING');
    assert.equal((answer as { queue?: { state: string } }).queue?.state, 'sending', 'leased: the worker sends it when the lease ends');
    assert.ok(await storage.outbound.get('ins', answer.key.id), 'still queued');
    await storage.close();
  });
});
