import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isParleyError, ServiceUnavailableError, type MessageRecord, type PacingPolicy, type SendRequest } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import type { EventBus } from '../src/events/event-bus.js';
import type { InstanceRegistry } from '../src/instances/instance-registry.js';
import type { InstanceRuntime } from '../src/instances/instance-runtime.js';
import { encodeJob, recordOf, type OutboundJob } from '../src/send/outbound-job.js';
import { OutboundWorker } from '../src/send/outbound-worker.js';
import { Pacer } from '../src/send/pacer.js';
import type { PacingPolicies } from '../src/send/pacing-policies.js';
import type { SendProjection } from '../src/send/send-projection.js';
import { silentLogger } from './support.js';

const T = Date.UTC(2030, 0, 1, 12);
const LEASE_MS = 1_000;
const POLICY: PacingPolicy = {
  perMinute: null, perHour: null, minGapMs: 0, jitterMs: 0, recipientGapMs: 0, quietHours: null,
  typing: { enabled: false, msPerChar: 0, minMs: 0, maxMs: 0 }, maxQueued: 10,
};
const JOB: OutboundJob = { channel: 'whatsapp', to: '5511900000002', remoteJid: '5511900000002@s.whatsapp.net', content: { type: 'text', text: 'once' } };

/**
 * Issue 24 item 5: a message the channel took is never answered as a failure that invites a retry,
 * nor sent again. Storing its record fails once (storage failing after the send: the write is lost):
 * the inline send answers 500 `sent_not_recorded`; when the entry's lease ends the worker claims it,
 * stores the record it kept and completes the entry, and the channel was asked to send it once.
 */
describe('OutboundWorker: a send whose record could not be stored', () => {
  it('answers sent_not_recorded, then stores the record at the next claim without sending again', async () => {
    let now = T;
    const clock = { now: () => now };
    const storage = new MemoryStorage(clock);
    await storage.init();
    const sends: string[] = [];
    const adapter = {
      channel: 'whatsapp',
      capabilities: {
        messaging: {
          supports: () => true,
          send: async (req: SendRequest & { id: string }) => {
            sends.push(req.id);
            return { ...recordOf(req.id, T, JOB), status: 'SERVER_ACK' } as MessageRecord;
          },
        },
      },
    };
    const runtime = { id: 'ins', main: adapter, adapter: () => adapter, isConnected: () => true, record: { driver: 'sandbox' } } as unknown as InstanceRuntime;
    let storeFails = true;
    const projection = {
      project: async (instance: string, _adapter: unknown, _content: unknown, record: MessageRecord) => {
        if (storeFails) {
          storeFails = false;
          throw new ServiceUnavailableError('storage is unavailable');
        }
        await storage.messages.upsert(instance, record);
        return record;
      },
    } as unknown as SendProjection;
    const worker = new OutboundWorker({
      storage, registry: { byIdOrThrow: async () => runtime } as unknown as InstanceRegistry, clock, logger: silentLogger(),
      policies: { get: async () => POLICY } as unknown as PacingPolicies, pacer: new Pacer(), projection, bus: {} as EventBus,
      options: { leaseMs: LEASE_MS, recheckMs: 10, concurrency: 1 },
    });
    const entry = { id: 'm1', instance: 'ins', lane: `whatsapp:${JOB.remoteJid}`, dueAt: T, createdAt: T, payload: encodeJob(JOB) };
    assert.equal(await storage.outbound.enqueue(entry, 10, { now: T, leaseMs: LEASE_MS }), 'leased');

    const answer = await worker.sendInline(runtime, { ...entry, order: T, attempts: 0, leasedUntil: T + LEASE_MS }, JOB).then(() => null, (err: unknown) => err);
    assert.ok(isParleyError(answer) && answer.status === 500 && answer.code === 'sent_not_recorded', String(answer));
    assert.deepEqual(answer.details, { messageId: 'm1' });
    assert.deepEqual(sends, ['m1']);
    assert.ok(await storage.outbound.get('ins', 'm1'), 'the entry stays, leased, for its record to be stored');
    assert.equal(await storage.messages.get('ins', 'm1'), null);

    // The lease ends: the worker claims the entry again.
    now = T + LEASE_MS + 1;
    worker.start();
    try {
      for (let i = 0; i < 200 && (await storage.outbound.get('ins', 'm1')); i++) await new Promise((r) => setTimeout(r, 10));
    } finally {
      await worker.stop();
    }
    assert.equal(await storage.outbound.get('ins', 'm1'), null, 'completed');
    assert.equal((await storage.messages.get('ins', 'm1'))?.status, 'SERVER_ACK', 'the record the channel answered is stored');
    assert.deepEqual(sends, ['m1'], 'sent once');
    await storage.close();
  });
});
