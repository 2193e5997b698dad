import { addressNumber, describeError, isParleyError, SentNotRecordedError, type Clock, type Logger, type MessageRecord, type Outbound, type Storage } from '@parley/core';
import { ClaimPump } from '@parley/host';
import type { EventBus } from '../events/event-bus.js';
import type { InstanceRegistry } from '../instances/instance-registry.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import type { ServerMetrics } from '../metrics/server-metrics.js';
import { decodeJob, recordOf, type OutboundJob, type PendingRecords } from './outbound-job.js';
import { backoffMs, failedSendError, failureKind, MAX_ATTEMPTS, typingMs } from './outbound-retry.js';
import type { Pacer } from './pacer.js';
import type { PacingPolicies } from './pacing-policies.js';
import { sendingChannel } from './sending-channel.js';
import { storeSent } from './sent-record.js';

/** Settings of the worker (config `queue.*`). */
export interface OutboundWorkerOptions {
  /** How long a claimed send is held; a worker that dies leaves it to be claimed again after this. */
  leaseMs: number;
  /** Longest sleep between looks at the queue (sends due later, leases of dead workers, clock jumps). */
  recheckMs: number;
  /** Sends in flight at once (each to a different recipient). */
  concurrency: number;
}

export interface OutboundWorkerDeps {
  storage: Storage;
  registry: InstanceRegistry;
  clock: Clock;
  logger: Logger;
  policies: PacingPolicies;
  pacer: Pacer;
  /** The bus through which a send's record reaches the store ({@link storeSent}), and the resume path waits for the channel's events. */
  bus: EventBus;
  metrics?: Pick<ServerMetrics, 'sent'>;
  options: OutboundWorkerOptions;
  /** The `message` of the record of a send that failed for good, as its channel names it (default: core's `recordMessageOf`). */
  pending?: PendingRecords;
  /**
   * In a cluster: whether this node owns an instance now (holds its lease). A claim takes due sends of
   * every instance; only the owner runs the instance's channel, so the others hand theirs back.
   * Absent on a single server, which owns everything.
   */
  owns?: (instance: string) => boolean;
}

/** Thrown out of a typing wait when the worker stops: the send stays leased and is taken up again. */
class Stopped extends Error {}

/**
 * Thrown before a send when this node no longer owns the instance (cluster: its lease was lost): the
 * send is left as it is, leased, for the new owner to take over ({@link OutboundWorker.takeOver}).
 */
class NotOwner extends Error {}

/**
 * Thrown when the channel took a message and storing its record, or completing its entry, failed: the
 * send is done and must not be made again (the record is kept in memory, {@link OutboundWorker.unrecorded}).
 */
class Unrecorded extends Error {
  constructor(readonly messageId: string, override readonly cause: unknown) {
    super(`message ${messageId} was sent; storing its record failed`);
  }
}

/** At most this many ids are kept as {@link OutboundWorker.unclaimed}; beyond it a first claim looks for the record as any other. */
const MAX_UNCLAIMED = 65_536;

/** {@link OutboundWorker.takeOver} reads the instance's queue this many sends at a time, and at most {@link TAKEOVER_SCAN}. */
const TAKEOVER_PAGE = 100;
const TAKEOVER_SCAN = 1_000;

/**
 * The sending half of the outbound queue: claims due sends from storage (never holding the queue in
 * memory), lets the pacer place each one, shows typing, sends through the channel, stores the record,
 * and completes the entry. Exactly-once as far as storage can make it: the record is written before
 * the entry is completed, and an entry whose record exists is completed without sending (see
 * {@link OutboundQueue}).
 */
export class OutboundWorker {
  /** The last round found due sends it could not claim (held by leases, such as sends going out inline). */
  private blocked = false;
  private readonly inFlight = new Map<string, Promise<void>>();
  /**
   * Sends the channel took whose record could not be stored (storage failing, disk full), by
   * `instance/id`: when their entry is claimed again (its lease expired) the record is stored and the
   * entry completed, and nothing is sent a second time. Only sends made while storage fails land here.
   */
  private readonly unrecorded = new Map<string, MessageRecord>();
  /**
   * Sends this process queued under a new message id, by `instance/id`, that no claim has taken since
   * ({@link queuedNew}): off a cluster only this worker sends them, so none can have a record, and their
   * first claim does not look for one. Dropped on that claim, on a cancel and when the instance's queue
   * is deleted with it ({@link forgetInstance}).
   */
  private readonly unclaimed = new Set<string>();
  private readonly pump = new ClaimPump(() => this.round(), {
    failed: (err, run) => this.deps.logger.error({ error: describeError(err), ...run }, 'outbound queue unavailable; retrying with backoff'),
    recovered: (run) => this.deps.logger.info(run, 'outbound queue available again'),
  });

  constructor(private readonly deps: OutboundWorkerDeps) {}

  start(): void {
    this.pump.start();
  }

  /** Stops claiming and waits for sends in flight; a typing wait ends at once (that send stays leased). */
  async stop(): Promise<void> {
    await this.pump.stop();
    await Promise.all(this.inFlight.values());
  }

  /**
   * The send path queued a send under a new message id (not leased to the request). Not kept in a
   * cluster, where another node may claim and send it.
   */
  queuedNew(instance: string, id: string): void {
    if (!this.deps.owns && this.unclaimed.size < MAX_UNCLAIMED) this.unclaimed.add(`${instance}/${id}`);
  }

  /** The send was cancelled: it will not be claimed. */
  forget(instance: string, id: string): void {
    this.unclaimed.delete(`${instance}/${id}`);
  }

  /**
   * The instance was deleted with its queue: none of its sends will be claimed, and an entry of the
   * same id that comes back later (the instance restored from a copy) is not one this process queued.
   */
  forgetInstance(instance: string): void {
    const prefix = `${instance}/`;
    for (const key of this.unclaimed) if (key.startsWith(prefix)) this.unclaimed.delete(key);
  }

  /** Looks at the queue soon (a send was accepted, resumed, or one ended). */
  wake(): void {
    this.pump.wake();
  }

  /** One claim round: answers true when it filled every free slot. */
  private round(): Promise<boolean> {
    const { storage, clock, options } = this.deps;
    return this.pump.claimRound<Outbound>({
      free: () => options.concurrency - this.inFlight.size,
      claim: (now, limit) => storage.outbound.claim({ now, limit, leaseMs: options.leaseMs }),
      launch: (entry) => this.launch(entry),
      nextDueAt: () => storage.outbound.nextDueAt(),
      now: () => clock.now(),
      recheckMs: options.recheckMs,
      // Capped at recheckMs: the clock may jump (a fake one in tests, an NTP step) and leases expire.
      capSleep: true,
      sawDue: (due, claimedAt) => {
        this.blocked = due !== null && due <= claimedAt;
      },
    });
  }

  private launch(entry: Outbound): void {
    const done = this.handle(entry)
      .catch((err: unknown) => {
        if (err instanceof NotOwner) this.deps.logger.info({ instance: entry.instance, message: entry.id }, 'instance lost to another node before its send; left to its new owner');
        else if (err instanceof Unrecorded) this.deps.logger.error({ err: err.cause, instance: entry.instance, message: entry.id }, 'sent, but storing the record failed; stored when the entry is claimed again');
        else if (!(err instanceof Stopped)) this.deps.logger.error({ err, instance: entry.instance, message: entry.id }, 'outbound send bookkeeping failed');
      })
      .finally(() => {
        this.inFlight.delete(entry.id);
        this.wake();
      });
    this.inFlight.set(entry.id, done);
  }

  private async handle(entry: Outbound): Promise<void> {
    const { storage, clock, policies, pacer, owns, options } = this.deps;
    // Another node's instance (or one between owners): back to the queue, held for a recheck so that
    // this node does not claim it again at once; its owner's worker claims it once that hold is over.
    if (owns && !owns(entry.instance)) return storage.outbound.release(entry.instance, entry.id, { dueAt: Math.max(entry.dueAt, clock.now() + options.recheckMs) });
    const stored = this.unclaimed.delete(`${entry.instance}/${entry.id}`) ? null : await storage.messages.get(entry.instance, entry.id);
    const runtime = await this.runtimeOf(entry);
    if (!runtime) return storage.outbound.complete(entry.instance, entry.id);
    // The record is written only once the channel took the message, or failed the send for good: a
    // process died between it and the entry's completion.
    if (stored) return this.resume(runtime, entry, stored);
    const sent = this.unrecorded.get(`${entry.instance}/${entry.id}`);
    if (sent) {
      await this.record(runtime, entry, decodeJob(entry.payload), sent);
      return;
    }
    const policy = await policies.get(runtime.id, runtime.record.driver);
    const now = clock.now();
    const slot = pacer.slotOf(entry.instance, entry.id) ?? pacer.reserve(entry.instance, entry.lane, now, policy, entry.id);
    if (slot > now) return storage.outbound.release(entry.instance, entry.id, { dueAt: slot });
    const job = decodeJob(entry.payload);
    try {
      // Typing stays well inside the lease, so no other worker takes the send meanwhile.
      await this.send(runtime, entry, job, Math.min(typingMs(job, policy), Math.floor(this.deps.options.leaseMs / 2)));
      pacer.sent(entry.instance, entry.lane, clock.now(), policy);
    } catch (err) {
      if (err instanceof Stopped || err instanceof NotOwner || err instanceof Unrecorded) throw err;
      await this.failed(runtime, entry, job, err);
    }
  }

  /**
   * The instance of a claimed send, or null when it was deleted (its sends go with it). Loading it may
   * fail for other reasons — the node lost the instance's lease since the ownership check (a deadline
   * stop, a move: loading would claim the lease, which another node now holds), storage not answering —
   * and those must not drop the send: once not the owner, it is left leased for the new owner to take
   * over, as before a send ({@link NotOwner}); any other failure leaves it leased, and it is claimed
   * again when its queue lease expires.
   */
  private async runtimeOf(entry: Outbound): Promise<InstanceRuntime | null> {
    const { registry, owns } = this.deps;
    try {
      return await registry.byIdOrThrow(entry.instance);
    } catch (err) {
      if (isParleyError(err) && err.code === 'instance_not_found') return null;
      throw owns && !owns(entry.instance) ? new NotOwner() : err;
    }
  }

  /**
   * Releases the sends of `instance` that are leased now, so that they leave at once rather than when
   * their queue lease expires. For a cluster node that has just taken the instance's lease and not yet
   * acted on it: whatever is leased then was leased by the previous owner (or by another node that
   * hands it back), which can no longer send it — it lost the instance's lease, and a worker checks its
   * ownership right before every send and leaves the send alone once it lost it. Each keeps its place
   * in its lane, and the worker that takes it up checks for its record first, so one the previous
   * owner did send is completed, not sent again. Looks at the instance's first {@link TAKEOVER_SCAN}
   * sends by due time (leased ones are due, so they come first); any beyond wait for their lease.
   * Answers how many it released.
   */
  async takeOver(instance: string): Promise<number> {
    const { storage, clock } = this.deps;
    const now = clock.now();
    let released = 0;
    for (let offset = 0; offset < TAKEOVER_SCAN; offset += TAKEOVER_PAGE) {
      const { items } = await storage.outbound.list(instance, { limit: TAKEOVER_PAGE, offset });
      for (const entry of items) {
        if (entry.leasedUntil === undefined || entry.leasedUntil <= now) continue;
        await storage.outbound.release(instance, entry.id, { dueAt: entry.dueAt });
        released++;
      }
      if (items.length < TAKEOVER_PAGE || items.at(-1)!.dueAt > now) break;
    }
    return released;
  }

  /**
   * Sends a send the API just enqueued leased to itself (due, heading its lane, nothing to pace or
   * type) and answers the stored record, as the path before the queue did. A failure before the channel
   * took the message is the caller's answer, as before the queue (the entry is removed: nothing was sent,
   * nothing is kept), except a platform's rate limit: the send stays queued for the worker's backoff, and
   * null is answered. A failure to store the record of a message the channel took is 500
   * `sent_not_recorded` (the send is done: a retry would send it twice).
   */
  async sendInline(runtime: InstanceRuntime, entry: Outbound, job: OutboundJob): Promise<MessageRecord | null> {
    try {
      return await this.send(runtime, entry, job, 0);
    } catch (err) {
      // Answered with its queue state: the instance's new owner sends it.
      if (err instanceof NotOwner) return null;
      if (err instanceof Unrecorded) {
        this.deps.logger.error({ err: err.cause, instance: runtime.id, message: entry.id }, 'sent, but storing the record failed; stored when the entry is claimed again');
        throw new SentNotRecordedError(entry.id);
      }
      if (failureKind(err) !== 'rate_limit') {
        if (await this.removed(runtime, entry, err)) throw err;
        // Still queued: answering the failure would say nothing is queued, yet the worker tries it again
        // when its lease ends. The caller answers its queue state.
        this.wake();
        return null;
      }
      await this.failed(runtime, entry, job, err);
      // Its retry is the worker's now.
      this.wake();
      return null;
    } finally {
      // Sends to the same recipient may wait behind this one; a send with none behind it costs no look at the queue.
      if (this.blocked) this.wake();
    }
  }

  /** Removes the entry of an inline send that failed; false (logged) when storage refused, which leaves it queued and leased. */
  private async removed(runtime: InstanceRuntime, entry: Outbound, failure: unknown): Promise<boolean> {
    try {
      await this.deps.storage.outbound.complete(runtime.id, entry.id);
      return true;
    } catch (err) {
      this.deps.logger.warn(
        { err, failure: describeError(failure), instance: runtime.id, message: entry.id },
        'inline send failed and its queue entry could not be removed: the worker tries it again when its lease ends',
      );
      return false;
    }
  }

  private async send(runtime: InstanceRuntime, entry: Outbound, job: OutboundJob, typing: number): Promise<MessageRecord> {
    const { storage, clock, metrics, logger } = this.deps;
    const channel = sendingChannel(runtime, job.provider, job.content.type);
    if (typing > 0) {
      await channel.messaging.sendPresence({ to: job.to, status: 'composing' });
      await this.sleepUntil(clock.now() + typing);
    }
    const quoted = job.quotedId === undefined ? undefined : (await storage.messages.get(runtime.id, job.quotedId)) ?? undefined;
    // A node that lost the instance's lease (paused, cut off) sends nothing more for it: its new owner takes the send over.
    if (this.deps.owns && !this.deps.owns(runtime.id)) throw new NotOwner();
    const sent = await channel.messaging.send({ to: job.to, content: job.content, id: entry.id, ...(quoted ? { quoted } : {}) });
    metrics?.sent(channel.adapter.channel, job.content.type);
    if (typing > 0) {
      await channel.messaging.sendPresence({ to: job.to, status: 'paused' })
        .catch((err: unknown) => logger.debug({ err, instance: runtime.id }, 'paused presence after a typed send failed'));
    }
    return this.record(runtime, entry, job, sent);
  }

  /**
   * Stores the record of a message the channel took and completes its entry, durably (a commit that
   * fails, such as on a full disk, would otherwise leave the entry to be sent again); a failure throws
   * {@link Unrecorded} and keeps the record for the entry's next claim.
   */
  private async record(runtime: InstanceRuntime, entry: Outbound, job: OutboundJob, sent: MessageRecord): Promise<MessageRecord> {
    const { storage, bus } = this.deps;
    const key = `${entry.instance}/${entry.id}`;
    try {
      const stored = await storeSent(bus, runtime.id, sendingChannel(runtime, job.provider, job.content.type).adapter.channel, job.content, sent);
      await storage.outbound.complete(runtime.id, entry.id);
      await storage.flush();
      this.unrecorded.delete(key);
      return stored;
    } catch (err) {
      this.unrecorded.set(key, sent);
      throw new Unrecorded(entry.id, err);
    }
  }

  /**
   * Completes the entry of a send whose record is stored: a process died after the channel took the
   * message and before the entry was completed, which is also before the send's events (the channel's
   * own copy, `sent`) were surely queued for their webhooks — the entry is completed only once they
   * are. The channel reports again those the event log lacks (`MessagingCapability.resumeSent`), and
   * the entry is completed once they are processed, so a crash in this step too leaves the entry to be
   * resumed again. A social channel unlinked since has nothing to report, nor has a send that failed
   * for good (its record reads `ERROR`: the channel never took it).
   */
  private async resume(runtime: InstanceRuntime, entry: Outbound, stored: MessageRecord): Promise<void> {
    const { storage, bus } = this.deps;
    const { provider } = decodeJob(entry.payload);
    const linked = !provider || provider === runtime.main.channel || runtime.social.has(provider);
    const messaging = linked ? runtime.adapter(provider).capabilities.messaging : undefined;
    if (messaging?.resumeSent && stored.status !== 'ERROR') {
      await messaging.resumeSent(stored);
      await bus.processed(runtime.id);
    }
    await storage.outbound.complete(runtime.id, entry.id);
    await storage.flush();
  }

  /** Waits on the injected clock (re-read every recheck, so a fake clock moves it), unless the worker stops. */
  private async sleepUntil(at: number): Promise<void> {
    const { clock, options } = this.deps;
    while (clock.now() < at) {
      if (!this.pump.isRunning) throw new Stopped();
      await new Promise((resolve) => setTimeout(resolve, Math.min(at - clock.now(), options.recheckMs)));
    }
  }

  /** Retries within {@link MAX_ATTEMPTS} with backoff (a rate limit holds the whole instance), else fails the send for good. */
  private async failed(runtime: InstanceRuntime, entry: Outbound, job: OutboundJob, err: unknown): Promise<void> {
    const { storage, clock, pacer, logger, bus } = this.deps;
    const kind = failureKind(err);
    const attempts = entry.attempts + 1;
    const error = err instanceof Error ? err.message : String(err);
    const now = clock.now();
    if (kind !== 'final' && attempts < MAX_ATTEMPTS) {
      const dueAt = now + backoffMs(attempts);
      if (kind === 'rate_limit') pacer.block(runtime.id, dueAt);
      logger.warn({ instance: runtime.id, message: entry.id, attempts, kind, error, retryAt: dueAt }, 'outbound send failed; retrying');
      await storage.outbound.release(runtime.id, entry.id, { dueAt, failed: { error } });
      return;
    }
    logger.warn({ instance: runtime.id, message: entry.id, attempts, kind, error }, 'outbound send failed for good');
    const record = recordOf(entry.id, entry.createdAt, job, 'ERROR', this.deps.pending);
    await storage.messages.upsert(runtime.id, record);
    const main = job.provider === undefined;
    bus.publish(runtime.id, job.channel, {
      type: 'message.status', messageId: record.key.id, chatJid: record.key.remoteJid,
      recipientId: main && runtime.addressing.phoneNumbers ? addressNumber(runtime.addressing, record.key.remoteJid) : record.key.remoteJid, status: 'failed', timestamp: Math.floor(now / 1000),
      error: failedSendError(err, attempts),
    });
    await storage.outbound.complete(runtime.id, entry.id);
  }
}
