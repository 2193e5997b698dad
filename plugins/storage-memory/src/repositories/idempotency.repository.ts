import type { IdempotencyClaim, IdempotencyCompletion, IdempotencyRecord, IdempotencyStore } from '@parley/core';
import { copyOf } from '../copy.js';

/** How often (by the callers' clock) expired records are swept out. */
const SWEEP_EVERY_MS = 60_000;

export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly records = new Map<string, IdempotencyRecord>();
  private sweptAt = 0;

  async begin(scope: string, key: string, claim: IdempotencyClaim): Promise<IdempotencyRecord | null> {
    this.sweep(claim.now);
    const live = this.live(scope, key, claim.now);
    if (live) return copyOf(live);
    this.records.set(id(scope, key), { state: 'in_progress', fingerprint: claim.fingerprint, owner: claim.owner, expiresAt: claim.expiresAt });
    return null;
  }

  async complete(scope: string, key: string, done: IdempotencyCompletion): Promise<boolean> {
    const record = this.records.get(id(scope, key));
    if (!record || record.state !== 'in_progress' || record.owner !== done.owner) return false;
    this.records.set(id(scope, key), { ...record, state: 'done', expiresAt: done.expiresAt, answer: copyOf(done.answer) });
    return true;
  }

  async release(scope: string, key: string, owner: string): Promise<void> {
    const record = this.records.get(id(scope, key));
    if (record?.state === 'in_progress' && record.owner === owner) this.records.delete(id(scope, key));
  }

  async get(scope: string, key: string, now: number): Promise<IdempotencyRecord | null> {
    const live = this.live(scope, key, now);
    return live ? copyOf(live) : null;
  }

  private live(scope: string, key: string, now: number): IdempotencyRecord | undefined {
    const record = this.records.get(id(scope, key));
    return record && record.expiresAt > now ? record : undefined;
  }

  private sweep(now: number): void {
    if (now - this.sweptAt < SWEEP_EVERY_MS) return;
    this.sweptAt = now;
    for (const [k, record] of this.records) if (record.expiresAt <= now) this.records.delete(k);
  }
}

function id(scope: string, key: string): string {
  return `${scope}\u0000${key}`;
}
