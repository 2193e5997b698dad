import {
  ConflictError, messageIdFor, newMessageId, normalizeAddress, NotFoundError, ParleyError, type Clock, type MessageRecord, type Outbound,
  type PacingPolicy, type SendRequest, type Storage,
} from '@parley/core';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { decodeJob, encodeJob, recordOf, type OutboundJob, type PendingRecords } from './outbound-job.js';
import type { OutboundWorker } from './outbound-worker.js';
import { pacesNothing, type Pacer } from './pacer.js';
import type { PacingPolicies } from './pacing-policies.js';
import { dueAtOf, type SendOptions } from './send-options.js';
import type { SendingChannel } from './sending-channel.js';

/** Where a queued send stands, shown in its record's `queue.state` until the channel takes it. */
export type QueueState = 'queued' | 'scheduled' | 'paused' | 'sending';

/** The `queue` member of a record that is still in the outbound queue. */
export interface QueueView {
  state: QueueState;
  /** ISO 8601: when it is due (its pacing slot once the pacer deferred it). */
  dueAt: string;
}

/** A queued record: spec 2.4's record (status `PENDING`) plus where it stands in the queue. */
export type QueuedRecord = MessageRecord & { queue: QueueView };

/** What the queue needs besides storage: time, policies, the pacer and the worker. */
export interface SendQueueDeps {
  storage: Storage;
  clock: Clock;
  policies: PacingPolicies;
  pacer: Pacer;
  worker: OutboundWorker;
  leaseMs: number;
  /** The `message` of a queued send's record, as its channel names it (default: core's `recordMessageOf`). */
  pending?: PendingRecords;
}

/**
 * The accepting half of the outbound queue: gives a checked send its message id and its record, and
 * stores it durably in the instance's queue (429 `queue_full` with `Retry-After` past the bound)
 * before the API answers. A send with nothing to wait for (due now, first to its recipient, nothing
 * to pace or type) is stored already leased and sent at once, and the API answers the channel's
 * record as it did before the queue; any other is answered with its `queue` state and left to the
 * {@link OutboundWorker}.
 */
export class SendQueue {
  constructor(private readonly deps: SendQueueDeps) {}

  /**
   * Accepts a checked send. Under an idempotency key its id derives from `runKey`, the seed of the run
   * whose work this is: when that run (on a server that died) already sent it, its record is answered;
   * when it queued it, the queue keeps one entry (an id is stored once) and its queue state is answered.
   */
  async accept(runtime: InstanceRuntime, channel: SendingChannel, request: SendRequest, options: SendOptions, runKey?: string): Promise<MessageRecord> {
    const { storage, clock, policies, pacer, worker, leaseMs } = this.deps;
    const now = clock.now();
    const dueAt = dueAtOf(options, now);
    const main = channel.adapter === runtime.main;
    const id = runKey === undefined ? newMessageId() : messageIdFor(`${runtime.id}\u0000${runKey}`);
    if (runKey !== undefined) {
      const sent = await storage.messages.get(runtime.id, id);
      if (sent) return sent;
    }
    const remoteJid = main ? normalizeAddress(runtime.addressing, request.to, 'body.to') : request.to;
    const job: OutboundJob = {
      ...(main ? {} : { provider: channel.adapter.channel }), channel: channel.adapter.channel, to: request.to, remoteJid, content: request.content,
      ...(request.quoted ? { quotedId: request.quoted.key.id } : {}), ...(options.typing === undefined ? {} : { typing: options.typing }),
    };
    const policy = await policies.get(runtime.id, runtime.record.driver);
    const immediate = dueAt <= now && pacesNothing(policy) && pacer.heldUntil(runtime.id) <= now
      && (options.typing === undefined ? !policy.typing.enabled : options.typing === false || options.typing === 0);
    const entry = {
      id, instance: runtime.id, lane: `${channel.adapter.channel}:${remoteJid}`, dueAt, createdAt: now, payload: encodeJob(job),
    };
    const outcome = await storage.outbound.enqueue(entry, policy.maxQueued, immediate ? { now, leaseMs } : undefined);
    if (outcome === 'full') throw queueFull(policy);
    // Durable before anything acts on it: a commit that fails (a full disk) then answers 503 with nothing
    // queued and nothing sent, instead of failing after the channel took the message.
    await storage.flush();
    const stored: Outbound = { ...entry, order: dueAt, attempts: 0, ...(outcome === 'leased' ? { leasedUntil: now + leaseMs } : {}) };
    if (outcome === 'leased') {
      const sent = await worker.sendInline(runtime, stored, job);
      if (sent) return sent;
    } else {
      if (runKey === undefined) worker.queuedNew(runtime.id, id);
      worker.wake();
    }
    // The entry is durable: reading it may fail (storage going away), but a 503 would say nothing is
    // queued. A new id's entry is answered as it was stored, paused as the enqueue found the instance (a
    // worker may take it meanwhile: GET /{key}/message/{id} tells where it stands then); an entry a run
    // under the same key may have queued before, or one still queued after its inline send, as it stands,
    // or as stored when reading fails.
    const paused = outcome === 'paused';
    if (outcome !== 'leased' && runKey === undefined) return this.view(stored, paused, job);
    const queued = await storage.outbound.get(runtime.id, id).catch(() => stored);
    if (!queued) return recordOf(id, now, job, 'PENDING', this.deps.pending);
    return this.view(queued, paused);
  }

  /** The record of a send still in the queue, with its queue state, or null. */
  async queued(instance: string, id: string): Promise<QueuedRecord | null> {
    const entry = await this.deps.storage.outbound.get(instance, id);
    if (!entry) return null;
    return this.view(entry, await this.deps.storage.outbound.isPaused(instance));
  }

  /** The record and queue state of an entry; `job`: its payload decoded, when the caller holds it already (it just encoded it). */
  view(entry: Outbound, paused: boolean, job: OutboundJob = decodeJob(entry.payload)): QueuedRecord {
    const record = recordOf(entry.id, entry.createdAt, job, 'PENDING', this.deps.pending);
    const now = this.deps.clock.now();
    const state: QueueState = entry.leasedUntil !== undefined && entry.leasedUntil > now ? 'sending'
      : paused ? 'paused' : entry.dueAt > now ? 'scheduled' : 'queued';
    return { ...record, queue: { state, dueAt: new Date(entry.dueAt).toISOString() } };
  }

  /**
   * Cancels a send before it leaves: afterwards it is never sent. 409 `already_sending` while a worker
   * holds it, 409 `already_sent` when the channel took it, 404 `queued_message_not_found` otherwise.
   */
  async cancel(instance: string, id: string): Promise<void> {
    const { storage, clock } = this.deps;
    const outcome = await storage.outbound.cancel(instance, id, clock.now());
    if (outcome === 'cancelled') return this.deps.worker.forget(instance, id);
    if (outcome === 'sending') throw new ConflictError(`message ${id} is being sent and can no longer be cancelled`, 'already_sending');
    if (await storage.messages.get(instance, id)) throw new ConflictError(`message ${id} was already sent`, 'already_sent');
    throw new NotFoundError(`queued message ${id}`, 'queued_message_not_found');
  }
}

/** 429 when the instance's queue holds `maxQueued` sends: retry after about one send's time. */
function queueFull(policy: PacingPolicy): ParleyError {
  const perSend = Math.max(policy.minGapMs + policy.jitterMs / 2, policy.perMinute ? 60_000 / policy.perMinute : 0, 1_000);
  const retryAfterSeconds = Math.ceil(perSend / 1000);
  return new ParleyError(429, 'queue_full', `the instance's outbound queue is full (${policy.maxQueued} sends); retry in ${retryAfterSeconds} s`,
    { retryAfterSeconds, maxQueued: policy.maxQueued });
}
