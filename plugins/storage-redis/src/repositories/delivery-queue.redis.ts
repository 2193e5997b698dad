import {
  webhookStatsOf, type Clock, type DeadLetter, type Delivery, type DeliveryFailure, type DeliveryOutcome, type DeliveryQueue, type LoggedEvent, type NewDelivery,
  type WebhookStats,
} from '@parley/core';
import { pairsToObject } from '../lua-script.js';
import type { RedisConnection } from '../redis-connection.js';
import { laneId, type RedisKeys } from '../redis-keys.js';
import {
  ackScript, claimScript, clearScript, completeScript, deadLettersScript, discardScript, enqueueScript, expediteScript, failScript, purgeScript, redeliverScript,
} from './delivery-queue.scripts.js';
import { pushEventArgs } from './event-log.redis.js';

/** Dead letters deleted per script run, so a large purge never blocks Redis for long. */
const PURGE_BATCH = 1000;

/**
 * The durable delivery queue on Redis (layout in `delivery-queue.scripts.ts`). Every operation is
 * one Lua script; `deadAt` and the due time of redeliveries come from the clock.
 */
export class RedisDeliveryQueue implements DeliveryQueue {
  constructor(
    private readonly connection: RedisConnection,
    private readonly keys: RedisKeys,
    private readonly clock: Clock,
  ) {}

  private scriptKeys(): string[] {
    return [this.keys.dueLanes, this.keys.deliverySeq, this.keys.deadAll, this.keys.dueMembers];
  }

  private stems(): string[] {
    const k = this.keys;
    return [k.deliveryStem, k.laneStem, k.lanesOfStem, k.deadOfStem, k.statsStem];
  }

  private exec(script: typeof ackScript, args: (string | number)[]): Promise<unknown> {
    return this.connection.run((client) => script.run(client, this.scriptKeys(), [...this.stems(), ...args]));
  }

  /** One script: the event-log entries and the deliveries are written in one atomic step. */
  async enqueue(deliveries: NewDelivery[], events: LoggedEvent[] = []): Promise<void> {
    if (deliveries.length === 0 && events.length === 0) return;
    const k = this.keys;
    const args: (string | number)[] = [...this.stems(), k.eventsOfStem, events.length];
    pushEventArgs(args, events);
    for (const d of deliveries) args.push(d.id, d.instance, d.url, d.format, d.eventId, d.eventType, d.body, d.createdAt, laneId(d.instance, d.url));
    await this.connection.run((client) => enqueueScript.run(client, [...this.scriptKeys(), k.eventsAll, k.eventData], args));
  }

  async claim(options: { now: number; limit: number; leaseMs: number; perLane?: number }): Promise<Delivery[]> {
    if (options.limit <= 0) return [];
    const perLane = Math.max(1, options.perLane ?? 1);
    const reply = await this.exec(claimScript, [options.now, options.limit, options.now + options.leaseMs, perLane]) as unknown[];
    return reply.map((fields) => toDelivery(pairsToObject(fields)));
  }

  async ack(id: string, result: { responseTimeMs: number; status: number }): Promise<void> {
    await this.exec(ackScript, [id, result.responseTimeMs]);
  }

  async fail(id: string, failure: DeliveryFailure): Promise<void> {
    await this.exec(failScript, [
      id, failure.nextAttemptAt ?? '', failure.error, failure.status ?? '', failure.responseTimeMs ?? '', this.clock.now(),
    ]);
  }

  async complete(outcomes: DeliveryOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    const args = outcomes.flatMap((o) => {
      if (o.outcome === 'sent') return ['sent', o.id, '', '', '', o.responseTimeMs];
      if (o.outcome === 'released') return ['released', o.id, '', '', '', ''];
      const { nextAttemptAt, error, status, responseTimeMs } = o.failure;
      return ['failed', o.id, nextAttemptAt ?? '', error, status ?? '', responseTimeMs ?? ''];
    });
    await this.exec(completeScript, [this.clock.now(), ...args]);
  }

  async expedite(url: string, now: number): Promise<number> {
    return await this.exec(expediteScript, [url, now]) as number;
  }

  async nextDueAt(): Promise<number | null> {
    const [first] = await this.connection.run((client) => client.zRangeWithScores(this.keys.dueLanes, 0, 0));
    return first ? first.score : null;
  }

  async deadLetters(instance: string, page: { limit: number; offset: number }): Promise<{ items: DeadLetter[]; total: number }> {
    const [total, ...items] = await this.exec(deadLettersScript, [instance, Math.max(0, page.offset), page.limit]) as [number, ...unknown[]];
    return { items: items.map((fields) => toDeadLetter(pairsToObject(fields))), total };
  }

  async redeliver(instance: string, ids?: string[]): Promise<number> {
    if (ids && ids.length === 0) return 0;
    const selection = ids ? ['ids', ...new Set(ids)] : ['all'];
    return await this.exec(redeliverScript, [instance, this.clock.now(), ...selection]) as number;
  }

  async discardDeadLetters(instance: string, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return await this.exec(discardScript, [instance, ...new Set(ids)]) as number;
  }

  async purgeDeadLetters(before: number): Promise<number> {
    let total = 0;
    for (;;) {
      const purged = await this.exec(purgeScript, [before, PURGE_BATCH]) as number;
      total += purged;
      if (purged < PURGE_BATCH) return total;
    }
  }

  async stats(instance: string): Promise<WebhookStats> {
    const [sent, failed, pending, sum, count] = await this.connection.run((client) =>
      client.hmGet(this.keys.stats(instance), ['sent', 'failed', 'pending', 'responseTimeSum', 'responseCount']));
    const counters = { sent: Number(sent ?? 0), failed: Number(failed ?? 0), responseTimeSum: Number(sum ?? 0), responses: Number(count ?? 0) };
    return webhookStatsOf(counters, Number(pending ?? 0));
  }

  async clear(instance: string): Promise<void> {
    await this.exec(clearScript, [instance]);
  }
}

function toDelivery(fields: Record<string, string>): Delivery {
  const delivery: Delivery = {
    id: fields.id!,
    instance: fields.instance!,
    url: fields.url!,
    format: fields.format!,
    eventId: fields.eventId!,
    eventType: fields.eventType!,
    body: fields.body!,
    createdAt: Number(fields.createdAt),
    attempts: Number(fields.attempts),
    nextAttemptAt: Number(fields.nextAttemptAt),
  };
  if (fields.lastError !== undefined) delivery.lastError = fields.lastError;
  if (fields.lastStatus !== undefined) delivery.lastStatus = Number(fields.lastStatus);
  return delivery;
}

function toDeadLetter(fields: Record<string, string>): DeadLetter {
  return { ...toDelivery(fields), deadAt: Number(fields.deadAt) };
}
