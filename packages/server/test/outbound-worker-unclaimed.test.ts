import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { encodeJob, recordOf } from '../src/send/outbound-job.js';
import { JOB, outboundHarness, T, untilCompleted } from './outbound-fakes.js';

/**
 * Issue 26 target 1: the first claim of a send this process queued under a new id does not look for
 * its record (nobody else sends it off a cluster); any other claim does, so a send whose record a
 * process that died stored is completed without being sent again.
 */
describe('OutboundWorker: looking for the record of a claimed send', () => {
  const entry = (id: string) => ({ id, instance: 'ins', lane: `whatsapp:${JOB.remoteJid}`, dueAt: T, createdAt: T, payload: encodeJob(JOB) });

  it('sends a send queued here under a new id without reading its record first', async () => {
    const { h, storage, worker } = await outboundHarness();
    const reads: string[] = [];
    const get = storage.messages.get.bind(storage.messages);
    storage.messages.get = async (instance, id) => (reads.push(id), get(instance, id));
    assert.equal(await storage.outbound.enqueue(entry('m1'), 10), 'queued');
    worker.queuedNew('ins', 'm1');
    await untilCompleted(h, storage, worker, 'm1');
    assert.deepEqual(h.sends, ['m1']);
    assert.deepEqual(reads, [], 'no look for a record nobody could have written');
    await storage.close();
  });

  it('completes without sending a send queued by another process whose record is stored', async () => {
    const { h, storage, worker } = await outboundHarness();
    assert.equal(await storage.outbound.enqueue(entry('m2'), 10), 'queued');
    // A process that died after the channel took it stored its record and never completed the entry.
    await storage.messages.upsert('ins', { ...recordOf('m2', T, JOB), status: 'SERVER_ACK' });
    await untilCompleted(h, storage, worker, 'm2');
    assert.equal(await storage.outbound.get('ins', 'm2'), null, 'completed');
    assert.deepEqual(h.sends, [], 'not sent again');
    await storage.close();
  });

  it('looks again once the instance was deleted with its queue: an entry of the same id restored later is not its own', async () => {
    const { h, storage, worker } = await outboundHarness();
    assert.equal(await storage.outbound.enqueue(entry('m3'), 10), 'queued');
    worker.queuedNew('ins', 'm3');
    // The instance is deleted with its queue, as InstanceAdmin.delete does it.
    await storage.outbound.clear('ins');
    worker.forgetInstance('ins');
    // Restored from a copy taken after another process sent it: its record and its entry both come back.
    await storage.messages.upsert('ins', { ...recordOf('m3', T, JOB), status: 'SERVER_ACK' });
    assert.equal(await storage.outbound.enqueue(entry('m3'), 10), 'queued');
    await untilCompleted(h, storage, worker, 'm3');
    assert.equal(await storage.outbound.get('ins', 'm3'), null, 'completed');
    assert.deepEqual(h.sends, [], 'not sent again');
    await storage.close();
  });
});
