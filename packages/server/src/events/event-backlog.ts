import type { ChannelEvent } from '@parley/core';

/** What one instance may hold in memory, waiting for its turn, while its storage is unavailable. */
export interface BacklogLimits {
  /** Events waiting (default 10,000: a busy account's inbound traffic of several minutes). */
  maxEvents: number;
  /** Bytes (as JSON) of the events published while its storage is unavailable (default 64 MiB). */
  maxBytes: number;
}

export const DEFAULT_BACKLOG_LIMITS: BacklogLimits = { maxEvents: 10_000, maxBytes: 64 << 20 };

/**
 * Bounds the events an instance's chain holds while a storage outage blocks it. Only then: a chain
 * that moves holds what a burst queues for a moment, and measuring every event would cost its
 * serialisation. Events published while the instance is blocked are measured as JSON; those queued
 * before the outage count towards `maxEvents` only.
 */
export class EventBacklog {
  private readonly limits: BacklogLimits;
  /** Per instance, the bytes of its measured events still waiting. */
  private readonly bytes = new Map<string, number>();
  /** The size each measured event was counted with. */
  private readonly sizes = new WeakMap<object, number>();

  constructor(limits: Partial<BacklogLimits> = {}) {
    this.limits = { ...DEFAULT_BACKLOG_LIMITS, ...limits };
  }

  /**
   * Whether `event` may join the `waiting` events of its instance; answers why not (the limit hit)
   * when the instance is `blocked` by an outage and a limit would be passed, undefined otherwise.
   */
  admit(instance: string, event: ChannelEvent, waiting: number, blocked: boolean): { limit: string; waiting: number; bytes: number } | undefined {
    if (!blocked) return undefined;
    const held = this.bytes.get(instance) ?? 0;
    if (waiting >= this.limits.maxEvents) return { limit: `events.maxBacklog (${this.limits.maxEvents})`, waiting, bytes: held };
    const size = sizeOf(event);
    if (held + size > this.limits.maxBytes) return { limit: `events.maxBacklogBytes (${this.limits.maxBytes})`, waiting, bytes: held };
    this.sizes.set(event, size);
    this.bytes.set(instance, held + size);
    return undefined;
  }

  /** The event left the waiting list (its turn came); one it never admitted (the send path's records) counted for nothing. */
  taken(instance: string, event: object): void {
    const size = this.sizes.get(event);
    if (size === undefined) return;
    const left = this.bytes.get(instance)! - size;
    if (left > 0) this.bytes.set(instance, left);
    else this.bytes.delete(instance);
  }
}

/** The event's length as JSON; 0 for one that cannot be serialised (a cycle, a BigInt), which `maxEvents` still bounds. */
function sizeOf(event: ChannelEvent): number {
  try {
    return JSON.stringify(event)?.length ?? 0;
  } catch {
    return 0;
  }
}
