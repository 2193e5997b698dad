import {
  systemClock, webhookStatsOf, type Clock, type DeliveryCounters,
  type DeadLetter, type Delivery, type DeliveryFailure, type DeliveryOutcome, type DeliveryQueue, type EventLog, type LoggedEvent, type NewDelivery,
  type WebhookStats,
} from '@parley/core';

interface Entry {
  delivery: Delivery;
  /** Enqueue rank: the order of lanes and of dead letters dying in the same millisecond. */
  seq: number;
  leaseUntil: number | null;
  deadAt: number | null;
}

function laneOf(delivery: Delivery): string {
  return `${delivery.instance}\n${delivery.url}`;
}

/**
 * The delivery queue in one Map kept in enqueue order, plus an index of each lane's live entries in
 * order, so finding lane heads costs one step per lane, not per queued delivery. Every method runs
 * synchronously to its end, so two claimers can never interleave.
 */
export class MemoryDeliveryQueue implements DeliveryQueue {
  private readonly entries = new Map<string, Entry>();
  /** Live (not dead) entries of each lane, by enqueue rank. */
  private readonly lanes = new Map<string, Entry[]>();
  private readonly counters = new Map<string, DeliveryCounters>();
  private seq = 0;

  /** `log` is the storage's event log, which {@link enqueue} appends to in the same step. */
  constructor(private readonly log: EventLog, private readonly clock: Clock = systemClock) {}

  async enqueue(deliveries: NewDelivery[], events: LoggedEvent[] = []): Promise<void> {
    // The memory log appends synchronously: nothing runs between the deliveries and the entries.
    void this.log.append(events);
    for (const delivery of deliveries) {
      if (this.entries.has(delivery.id)) continue;
      const entry: Entry = {
        delivery: { ...delivery, attempts: 0, nextAttemptAt: delivery.createdAt }, seq: ++this.seq, leaseUntil: null, deadAt: null,
      };
      this.entries.set(delivery.id, entry);
      this.addToLane(entry);
    }
  }

  async claim({ now, limit, leaseMs, perLane = 1 }: { now: number; limit: number; leaseMs: number; perLane?: number }): Promise<Delivery[]> {
    const claimable = this.laneHeads()
      .filter((entry) => entry.delivery.nextAttemptAt <= now && (entry.leaseUntil === null || entry.leaseUntil <= now))
      .sort((a, b) => a.delivery.nextAttemptAt - b.delivery.nextAttemptAt || a.seq - b.seq)
      .slice(0, limit);
    const claimed: Delivery[] = [];
    for (const head of claimable) {
      head.leaseUntil = now + leaseMs;
      const lane = this.lanes.get(laneOf(head.delivery))!;
      for (let i = 0; i < perLane && i < lane.length && lane[i]!.delivery.nextAttemptAt <= now; i++) claimed.push({ ...lane[i]!.delivery });
    }
    return claimed;
  }

  async complete(outcomes: DeliveryOutcome[]): Promise<void> {
    for (const outcome of outcomes) {
      // Synchronous to the end: no claim runs between the outcomes of one batch.
      if (outcome.outcome === 'sent') this.acknowledge(outcome.id, outcome);
      else if (outcome.outcome === 'failed') this.failAttempt(outcome.id, outcome.failure);
      else {
        const entry = this.live(outcome.id);
        if (entry) entry.leaseUntil = null;
      }
    }
  }

  async expedite(url: string, now: number): Promise<number> {
    let count = 0;
    for (const head of this.laneHeads()) {
      if (head.delivery.url !== url || head.delivery.nextAttemptAt <= now || (head.leaseUntil !== null && head.leaseUntil > now)) continue;
      head.delivery = { ...head.delivery, nextAttemptAt: now };
      count++;
    }
    return count;
  }

  async ack(id: string, result: { responseTimeMs: number; status: number }): Promise<void> {
    this.acknowledge(id, result);
  }

  async fail(id: string, failure: DeliveryFailure): Promise<void> {
    this.failAttempt(id, failure);
  }

  private acknowledge(id: string, result: { responseTimeMs: number }): void {
    const entry = this.live(id);
    if (!entry) return;
    this.entries.delete(id);
    this.removeFromLane(entry);
    const counters = this.countersOf(entry.delivery.instance);
    counters.sent++;
    counters.responseTimeSum += result.responseTimeMs;
    counters.responses++;
  }

  private failAttempt(id: string, failure: DeliveryFailure): void {
    const entry = this.live(id);
    if (!entry) return;
    const { lastStatus: _previous, ...delivery } = entry.delivery;
    entry.delivery = {
      ...delivery,
      attempts: delivery.attempts + 1,
      nextAttemptAt: failure.nextAttemptAt ?? delivery.nextAttemptAt,
      lastError: failure.error,
      ...(failure.status === undefined ? {} : { lastStatus: failure.status }),
    };
    entry.leaseUntil = null;
    if (failure.nextAttemptAt === null) {
      entry.deadAt = this.clock.now();
      this.removeFromLane(entry);
    }
    const counters = this.countersOf(delivery.instance);
    counters.failed++;
    if (failure.responseTimeMs !== undefined) {
      counters.responseTimeSum += failure.responseTimeMs;
      counters.responses++;
    }
  }

  async nextDueAt(): Promise<number | null> {
    const times = this.laneHeads().map((entry) => Math.max(entry.delivery.nextAttemptAt, entry.leaseUntil ?? -Infinity));
    return times.length === 0 ? null : Math.min(...times);
  }

  async deadLetters(instance: string, page: { limit: number; offset: number }): Promise<{ items: DeadLetter[]; total: number }> {
    const dead = [...this.entries.values()]
      .filter((entry) => entry.deadAt !== null && entry.delivery.instance === instance)
      .sort((a, b) => a.deadAt! - b.deadAt! || a.seq - b.seq);
    return {
      items: dead.slice(page.offset, page.offset + page.limit).map((entry) => ({ ...entry.delivery, deadAt: entry.deadAt! })),
      total: dead.length,
    };
  }

  async redeliver(instance: string, ids?: string[]): Promise<number> {
    const wanted = ids ? new Set(ids) : null;
    const now = this.clock.now();
    let moved = 0;
    for (const entry of this.entries.values()) {
      if (entry.deadAt === null || entry.delivery.instance !== instance || (wanted && !wanted.has(entry.delivery.id))) continue;
      entry.deadAt = null;
      entry.delivery = { ...entry.delivery, attempts: 0, nextAttemptAt: now };
      this.addToLane(entry);
      moved++;
    }
    return moved;
  }

  async discardDeadLetters(instance: string, ids: string[]): Promise<number> {
    let discarded = 0;
    for (const id of new Set(ids)) {
      const entry = this.entries.get(id);
      if (entry && entry.deadAt !== null && entry.delivery.instance === instance) {
        this.entries.delete(id);
        discarded++;
      }
    }
    return discarded;
  }

  async purgeDeadLetters(before: number): Promise<number> {
    let purged = 0;
    for (const [id, entry] of this.entries) {
      if (entry.deadAt !== null && entry.deadAt < before) {
        this.entries.delete(id);
        purged++;
      }
    }
    return purged;
  }

  async stats(instance: string): Promise<WebhookStats> {
    const counters = this.counters.get(instance);
    let pending = 0;
    for (const entry of this.entries.values()) if (entry.deadAt === null && entry.delivery.instance === instance) pending++;
    return webhookStatsOf(counters, pending);
  }

  async clear(instance: string): Promise<void> {
    for (const [id, entry] of this.entries) {
      if (entry.delivery.instance !== instance) continue;
      this.entries.delete(id);
      if (entry.deadAt === null) this.removeFromLane(entry);
    }
    this.counters.delete(instance);
  }

  /** Puts a live entry in its lane at its enqueue rank (a redelivered dead letter goes back to its place). */
  private addToLane(entry: Entry): void {
    const lane = laneOf(entry.delivery);
    const list = this.lanes.get(lane);
    if (!list) {
      this.lanes.set(lane, [entry]);
      return;
    }
    let at = list.length;
    while (at > 0 && list[at - 1]!.seq > entry.seq) at--;
    list.splice(at, 0, entry);
  }

  private removeFromLane(entry: Entry): void {
    const lane = laneOf(entry.delivery);
    const list = this.lanes.get(lane);
    if (!list) return;
    const at = list[0] === entry ? 0 : list.indexOf(entry);
    if (at >= 0) list.splice(at, 1);
    if (list.length === 0) this.lanes.delete(lane);
  }

  /** The first not-dead entry of each lane, leased or not: a leased head still blocks its lane. */
  private laneHeads(): Entry[] {
    const heads: Entry[] = [];
    for (const list of this.lanes.values()) heads.push(list[0]!);
    return heads;
  }

  /** A queued (not dead) entry. */
  private live(id: string): Entry | undefined {
    const entry = this.entries.get(id);
    return entry && entry.deadAt === null ? entry : undefined;
  }

  private countersOf(instance: string): DeliveryCounters {
    let counters = this.counters.get(instance);
    if (!counters) {
      counters = { sent: 0, failed: 0, responseTimeSum: 0, responses: 0 };
      this.counters.set(instance, counters);
    }
    return counters;
  }
}
