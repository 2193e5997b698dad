import type { EnqueueOutcome, NewOutbound, Outbound, OutboundPage, OutboundQueue } from '@parley/core';
import { pairsToObject, type LuaScript } from '../lua-script.js';
import type { RedisConnection } from '../redis-connection.js';
import { laneId, type RedisKeys } from '../redis-keys.js';
import {
  cancelOutbound, claimOutbound, clearOutbound, completeOutbound, enqueueOutbound, listOutbound, pauseOutbound, releaseOutbound,
} from './outbound-queue.scripts.js';

/** The outbound queue on Redis (layout in `outbound-queue.scripts.ts`): every operation is one Lua script. */
export class RedisOutboundQueue implements OutboundQueue {
  constructor(private readonly connection: RedisConnection, private readonly keys: RedisKeys) {}

  private exec(script: LuaScript, args: (string | number)[]): Promise<unknown> {
    const k = this.keys;
    return this.connection.run((client) => script.run(client, [k.outboundDue, k.outboundSeq, k.outboundPaused, k.outboundLaneInstance],
      [k.outboundItemStem, k.outboundLaneStem, k.outboundLanesStem, k.outboundInstanceStem, ...args]));
  }

  async enqueue(item: NewOutbound, bound: number, lease?: { now: number; leaseMs: number }): Promise<EnqueueOutcome> {
    return await this.exec(enqueueOutbound, [
      item.instance, item.id, item.lane, laneId(item.instance, item.lane), item.dueAt, item.createdAt, item.payload, bound,
      lease ? lease.now : '', lease ? lease.now + lease.leaseMs : '',
    ]) as EnqueueOutcome;
  }

  async claim(options: { now: number; limit: number; leaseMs: number }): Promise<Outbound[]> {
    if (options.limit <= 0) return [];
    const reply = await this.exec(claimOutbound, [options.now, options.limit, options.now + options.leaseMs]) as unknown[];
    return reply.map((fields) => toOutbound(pairsToObject(fields)));
  }

  async complete(instance: string, id: string): Promise<void> {
    await this.exec(completeOutbound, [instance, id]);
  }

  async release(instance: string, id: string, update: { dueAt: number; failed?: { error: string } }): Promise<void> {
    await this.exec(releaseOutbound, [instance, id, update.dueAt, update.failed?.error || (update.failed ? 'failed' : '')]);
  }

  async cancel(instance: string, id: string, now: number): Promise<'cancelled' | 'sending' | 'unknown'> {
    return await this.exec(cancelOutbound, [instance, id, now]) as 'cancelled' | 'sending' | 'unknown';
  }

  async get(instance: string, id: string): Promise<Outbound | null> {
    const fields = await this.connection.run((client) => client.hGetAll(`${this.keys.outboundItemStem}${instance}:${id}`));
    return fields.id === undefined ? null : toOutbound(fields);
  }

  async list(instance: string, page: { limit: number; offset: number }): Promise<OutboundPage> {
    if (page.limit <= 0) return { items: [], total: await this.count(instance) };
    const [total, ...items] = await this.exec(listOutbound, [instance, Math.max(0, page.offset), page.limit]) as [number, ...unknown[]];
    return { items: items.map((fields) => toOutbound(pairsToObject(fields))), total };
  }

  count(instance: string): Promise<number> {
    return this.connection.run((client) => client.zCard(`${this.keys.outboundInstanceStem}${instance}`));
  }

  async setPaused(instance: string, paused: boolean): Promise<void> {
    await this.exec(pauseOutbound, [instance, paused ? '1' : '']);
  }

  async isPaused(instance: string): Promise<boolean> {
    return (await this.connection.run((client) => client.sIsMember(this.keys.outboundPaused, instance))) === 1;
  }

  async nextDueAt(): Promise<number | null> {
    const [first] = await this.connection.run((client) => client.zRangeWithScores(this.keys.outboundDue, 0, 0));
    return first ? first.score : null;
  }

  async clear(instance: string): Promise<void> {
    await this.exec(clearOutbound, [instance]);
  }
}

function toOutbound(f: Record<string, string>): Outbound {
  return {
    id: f.id!, instance: f.instance!, lane: f.lane!, dueAt: Number(f.dueAt), createdAt: Number(f.createdAt), payload: f.payload!,
    order: Number(f.order), attempts: Number(f.attempts),
    ...(f.leasedUntil === undefined ? {} : { leasedUntil: Number(f.leasedUntil) }),
    ...(f.lastError === undefined ? {} : { lastError: f.lastError }),
  };
}
