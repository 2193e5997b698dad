import { ServiceUnavailableError, UpstreamError, type MessageRecord, type PacingPolicy, type SendRequest } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { WHATSAPP_ADDRESSING } from '@parley/whatsapp-proto';
import type { EventBus } from '../src/events/event-bus.js';
import type { InstanceRegistry } from '../src/instances/instance-registry.js';
import type { InstanceRuntime } from '../src/instances/instance-runtime.js';
import { recordOf, type OutboundJob } from '../src/send/outbound-job.js';
import { OutboundWorker } from '../src/send/outbound-worker.js';
import { Pacer } from '../src/send/pacer.js';
import type { PacingPolicies } from '../src/send/pacing-policies.js';
import { silentLogger } from './support.js';

export const T = Date.UTC(2030, 0, 1, 12);
export const LEASE_MS = 1_000;
/** Nothing paced or typed: a due send leaves inline. */
export const POLICY: PacingPolicy = {
  perMinute: null, perHour: null, minGapMs: 0, jitterMs: 0, recipientGapMs: 0, quietHours: null,
  typing: { enabled: false, msPerChar: 0, minMs: 0, maxMs: 0 }, maxQueued: 10,
};
export const JOB: OutboundJob = { channel: 'whatsapp', to: '5511900000002', remoteJid: '5511900000002@s.whatsapp.net', content: { type: 'text', text: 'once' } };

/**
 * The outbound queue's sending half over memory storage, with an instance `ins` whose channel records
 * the ids it was asked to send (`h.sends`; the first `h.failSends` of them fail as a network failure
 * would) and a bus whose `publishSent` stores records (failing `h.failStores` times first, as storage
 * refusing writes would). The clock is `h.now`, which a test moves.
 */
export async function outboundHarness() {
  const h: { now: number; sends: string[]; failStores: number; failSends: number; failCompletes: number } = {
    now: T, sends: [], failStores: 0, failSends: 0, failCompletes: 0,
  };
  const storage = new MemoryStorage({ now: (): number => h.now });
  await storage.init();
  // Completing an entry fails `h.failCompletes` times first, as storage going away would.
  const complete = storage.outbound.complete.bind(storage.outbound);
  storage.outbound.complete = async (instance, id) => {
    if (h.failCompletes > 0) {
      h.failCompletes--;
      throw new ServiceUnavailableError('storage is unavailable');
    }
    return complete(instance, id);
  };
  const adapter = {
    channel: 'whatsapp',
    capabilities: {
      messaging: {
        supports: () => true,
        send: async (req: SendRequest) => {
          // Without the queue the channel picks the id.
          const id = req.id ?? `CHANNEL${h.sends.length + 1}`;
          h.sends.push(id);
          if (h.failSends > 0) {
            h.failSends--;
            throw new UpstreamError('the network failed the send', { retryable: true });
          }
          return { ...recordOf(id, T, JOB), status: 'SERVER_ACK' } as MessageRecord;
        },
      },
    },
  };
  const runtime = {
    id: 'ins', main: adapter, adapter: () => adapter, isConnected: () => true, record: { driver: 'sandbox' }, addressing: WHATSAPP_ADDRESSING,
  } as unknown as InstanceRuntime;
  const bus = {
    publishSent: async (instance: string, _provider: unknown, sent: { record: MessageRecord }) => {
      if (h.failStores > 0) {
        h.failStores--;
        throw new ServiceUnavailableError('storage is unavailable');
      }
      await storage.messages.upsert(instance, sent.record);
    },
  } as unknown as EventBus;
  const clock = { now: () => h.now };
  const policies = { get: async () => POLICY } as unknown as PacingPolicies;
  const pacer = new Pacer();
  const worker = new OutboundWorker({
    storage, registry: { byIdOrThrow: async () => runtime } as unknown as InstanceRegistry, clock, logger: silentLogger(),
    policies, pacer, bus, options: { leaseMs: LEASE_MS, recheckMs: 10, concurrency: 1 },
  });
  return { h, storage, runtime, adapter, bus, worker, clock, policies, pacer };
}

/** Moves the clock past the lease of entry `id` and runs the worker until the entry is completed (bounded: about 2 s). */
export async function untilCompleted(h: { now: number }, storage: MemoryStorage, worker: OutboundWorker, id: string): Promise<void> {
  h.now = T + LEASE_MS + 1;
  worker.start();
  try {
    for (let i = 0; i < 200 && (await storage.outbound.get('ins', id)); i++) await new Promise((r) => setTimeout(r, 10));
  } finally {
    await worker.stop();
  }
}
