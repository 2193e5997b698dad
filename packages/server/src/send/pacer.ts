import { afterQuietHours, type PacingPolicy } from '@parley/core';

interface InstancePace {
  /** Send times reserved in the last hour, ascending. */
  times: number[];
  /** Latest reserved time. */
  last: number;
  /** No send before this (a rate limit answered by the platform). */
  blockedUntil: number;
}

/** Recipient gaps remembered before old ones are swept. */
const RECIPIENTS_SWEEP_AT = 10_000;
/**
 * Slots are reserved at most this far ahead: a send whose slot would be later goes back to the queue
 * until then without a reservation, so reservations (kept per send) stay few however long the backlog.
 */
export const RESERVE_HORIZON_MS = 60_000;
const MINUTE = 60_000;
const HOUR = 3_600_000;

/** Whether a policy paces nothing (the hot path skips the pacer then). */
export function pacesNothing(policy: PacingPolicy): boolean {
  return policy.perMinute === null && policy.perHour === null && policy.minGapMs === 0 && policy.jitterMs === 0
    && policy.recipientGapMs === 0 && policy.quietHours === null;
}

/**
 * Hands out send times that follow each instance's pacing policy. Reservations are monotonic per
 * instance: each is at least `minGapMs` (plus jitter) after the previous one, at least
 * `recipientGapMs` after the previous one to the same recipient, within the per-minute and per-hour
 * counts, and outside the quiet hours. Kept in memory (one hour of times per instance, recent
 * recipients): after a restart pacing starts afresh, while every deferred send keeps the time it was
 * given in the queue.
 */
export class Pacer {
  private readonly instances = new Map<string, InstancePace>();
  private readonly recipients = new Map<string, number>();
  /** Slots reserved for sends that wait for them: `<instance>\n<message id>` → time. */
  private readonly slots = new Map<string, number>();

  constructor(private readonly random: () => number = Math.random) {}

  /** The slot reserved earlier for message `id`, taken (the send leaves now), or undefined. */
  slotOf(instance: string, id: string): number | undefined {
    const key = `${instance}\n${id}`;
    const slot = this.slots.get(key);
    if (slot !== undefined) this.slots.delete(key);
    return slot;
  }

  /**
   * The earliest time at or after `now` the next send of `instance` to `lane` may leave. Reserves it
   * for message `id` unless it lies beyond {@link RESERVE_HORIZON_MS} (the send then asks again at that time).
   */
  reserve(instance: string, lane: string, now: number, policy: PacingPolicy, id: string): number {
    const pace = this.paceOf(instance);
    let at = Math.max(now, pace.blockedUntil);
    if (pacesNothing(policy)) return at;
    if (pace.times.length > 0) at = Math.max(at, pace.last + policy.minGapMs + Math.floor(this.random() * (policy.jitterMs + 1)));
    const recipient = `${instance}\n${lane}`;
    const previous = this.recipients.get(recipient);
    if (previous !== undefined) at = Math.max(at, previous + policy.recipientGapMs);
    at = this.withinCounts(pace.times, at, policy);
    if (at > now + RESERVE_HORIZON_MS) return at;
    if (at > now) this.keepSlot(`${instance}\n${id}`, at, now);
    pace.times.push(at);
    pace.last = at;
    while (pace.times.length > 0 && pace.times[0]! <= at - HOUR) pace.times.shift();
    if (policy.recipientGapMs > 0) this.remember(recipient, at, now, policy.recipientGapMs);
    return at;
  }

  /**
   * Notes that a send really left at `at` (a busy worker may send after its slot): the next slot
   * counts its gaps from here, so gaps are never shorter than the policy's.
   */
  sent(instance: string, lane: string, at: number, policy: PacingPolicy): void {
    if (pacesNothing(policy)) return;
    const pace = this.paceOf(instance);
    pace.last = Math.max(pace.last, at);
    if (policy.recipientGapMs > 0) this.remember(`${instance}\n${lane}`, at, at, policy.recipientGapMs);
  }

  /** Until when a platform's rate limit holds `instance` back (0 when it does not). */
  heldUntil(instance: string): number {
    return this.instances.get(instance)?.blockedUntil ?? 0;
  }

  /** Holds every send of `instance` until `until` (the platform asked to slow down). */
  block(instance: string, until: number): void {
    const pace = this.paceOf(instance);
    pace.blockedUntil = Math.max(pace.blockedUntil, until);
  }

  /** Forgets an instance's pace (deleted, or its policy changed); its reserved slots run out by themselves. */
  forget(instance: string): void {
    this.instances.delete(instance);
  }

  private keepSlot(key: string, at: number, now: number): void {
    this.slots.set(key, at);
    if (this.slots.size < RECIPIENTS_SWEEP_AT) return;
    // Slots of cancelled sends are never taken: drop the ones long past.
    for (const [k, slot] of this.slots) if (slot < now - RESERVE_HORIZON_MS) this.slots.delete(k);
  }

  /** The first time at or after `at` that the per-minute and per-hour counts and the quiet hours allow. */
  private withinCounts(times: number[], at: number, policy: PacingPolicy): number {
    for (let round = 0; round < 8; round++) {
      let next = at;
      if (policy.perMinute !== null) next = Math.max(next, windowFree(times, next, policy.perMinute, MINUTE));
      if (policy.perHour !== null) next = Math.max(next, windowFree(times, next, policy.perHour, HOUR));
      if (policy.quietHours) next = afterQuietHours(next, policy.quietHours);
      if (next === at) return at;
      at = next;
    }
    return at;
  }

  private paceOf(instance: string): InstancePace {
    let pace = this.instances.get(instance);
    if (!pace) this.instances.set(instance, (pace = { times: [], last: 0, blockedUntil: 0 }));
    return pace;
  }

  private remember(recipient: string, at: number, now: number, gap: number): void {
    this.recipients.delete(recipient);
    this.recipients.set(recipient, at);
    if (this.recipients.size < RECIPIENTS_SWEEP_AT) return;
    // Oldest first (insertion order): a recipient whose gap has passed needs no memory.
    for (const [key, time] of this.recipients) {
      if (time + gap > now) break;
      this.recipients.delete(key);
    }
  }
}

/** The first time at or after `at` when fewer than `limit` of `times` (ascending) fall in the window before it. */
function windowFree(times: number[], at: number, limit: number, window: number): number {
  const inWindow = times.filter((t) => t > at - window);
  if (inWindow.length < limit) return at;
  // The send `limit` back from the newest must leave the window first.
  return inWindow[inWindow.length - limit]! + window;
}
