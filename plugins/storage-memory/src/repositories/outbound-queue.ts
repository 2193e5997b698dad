import { byLaneOrder, type EnqueueOutcome, type NewOutbound, type Outbound, type OutboundPage, type OutboundQueue } from '@parley/core';

interface Entry {
  item: Outbound;
  seq: number;
}

/**
 * The outbound queue in process memory: entries by instance and id, plus each lane's entries in lane
 * order, so a claim looks at one head per lane. Every method runs synchronously to its end, so two
 * claimers never interleave.
 */
export class MemoryOutboundQueue implements OutboundQueue {
  private readonly byInstance = new Map<string, Map<string, Entry>>();
  private readonly lanes = new Map<string, Entry[]>();
  private readonly paused = new Set<string>();
  private seq = 0;

  async enqueue(item: NewOutbound, bound: number, lease?: { now: number; leaseMs: number }): Promise<EnqueueOutcome> {
    const entries = this.entriesOf(item.instance);
    const waiting = this.paused.has(item.instance) ? 'paused' : 'queued';
    if (entries.has(item.id)) return waiting;
    if (entries.size >= bound) return 'full';
    const entry: Entry = { item: { ...item, order: item.dueAt, attempts: 0 }, seq: ++this.seq };
    entries.set(item.id, entry);
    const lane = this.laneOf(item);
    lane.push(entry);
    lane.sort((a, b) => byLaneOrder({ order: a.item.order, seq: a.seq }, { order: b.item.order, seq: b.seq }));
    if (!lease || lane[0] !== entry || item.dueAt > lease.now || waiting === 'paused') return waiting;
    entry.item = { ...entry.item, leasedUntil: lease.now + lease.leaseMs };
    return 'leased';
  }

  async claim({ now, limit, leaseMs }: { now: number; limit: number; leaseMs: number }): Promise<Outbound[]> {
    const heads: Entry[] = [];
    for (const lane of this.lanes.values()) {
      const head = lane[0]!;
      if (this.paused.has(head.item.instance) || head.item.dueAt > now) continue;
      if (head.item.leasedUntil !== undefined && head.item.leasedUntil > now) continue;
      heads.push(head);
    }
    heads.sort((a, b) => a.item.dueAt - b.item.dueAt || a.seq - b.seq);
    return heads.slice(0, limit).map((head) => {
      head.item = { ...head.item, leasedUntil: now + leaseMs };
      return { ...head.item };
    });
  }

  async complete(instance: string, id: string): Promise<void> {
    const entry = this.byInstance.get(instance)?.get(id);
    if (entry) this.remove(entry);
  }

  async release(instance: string, id: string, update: { dueAt: number; failed?: { error: string } }): Promise<void> {
    const entry = this.byInstance.get(instance)?.get(id);
    if (!entry) return;
    const { leasedUntil: _held, ...item } = entry.item;
    entry.item = {
      ...item, dueAt: update.dueAt,
      ...(update.failed ? { attempts: item.attempts + 1, lastError: update.failed.error } : {}),
    };
  }

  async cancel(instance: string, id: string, now: number): Promise<'cancelled' | 'sending' | 'unknown'> {
    const entry = this.byInstance.get(instance)?.get(id);
    if (!entry) return 'unknown';
    if (entry.item.leasedUntil !== undefined && entry.item.leasedUntil > now) return 'sending';
    this.remove(entry);
    return 'cancelled';
  }

  async get(instance: string, id: string): Promise<Outbound | null> {
    const entry = this.byInstance.get(instance)?.get(id);
    return entry ? { ...entry.item } : null;
  }

  async list(instance: string, page: { limit: number; offset: number }): Promise<OutboundPage> {
    const all = [...(this.byInstance.get(instance)?.values() ?? [])].sort((a, b) => a.item.dueAt - b.item.dueAt || a.seq - b.seq);
    return { items: all.slice(page.offset, page.offset + page.limit).map((e) => ({ ...e.item })), total: all.length };
  }

  async count(instance: string): Promise<number> {
    return this.byInstance.get(instance)?.size ?? 0;
  }

  async setPaused(instance: string, paused: boolean): Promise<void> {
    if (paused) this.paused.add(instance);
    else this.paused.delete(instance);
  }

  async isPaused(instance: string): Promise<boolean> {
    return this.paused.has(instance);
  }

  async nextDueAt(): Promise<number | null> {
    let next: number | null = null;
    for (const lane of this.lanes.values()) {
      const head = lane[0]!.item;
      if (this.paused.has(head.instance)) continue;
      const at = head.leasedUntil ?? head.dueAt;
      if (next === null || at < next) next = at;
    }
    return next;
  }

  async clear(instance: string): Promise<void> {
    for (const entry of [...(this.byInstance.get(instance)?.values() ?? [])]) this.remove(entry);
    this.byInstance.delete(instance);
    this.paused.delete(instance);
  }

  private entriesOf(instance: string): Map<string, Entry> {
    let entries = this.byInstance.get(instance);
    if (!entries) this.byInstance.set(instance, (entries = new Map()));
    return entries;
  }

  private laneOf(item: { instance: string; lane: string }): Entry[] {
    const key = `${item.instance}\n${item.lane}`;
    let lane = this.lanes.get(key);
    if (!lane) this.lanes.set(key, (lane = []));
    return lane;
  }

  private remove(entry: Entry): void {
    this.byInstance.get(entry.item.instance)?.delete(entry.item.id);
    const key = `${entry.item.instance}\n${entry.item.lane}`;
    const lane = this.lanes.get(key);
    if (!lane) return;
    const at = lane.indexOf(entry);
    if (at >= 0) lane.splice(at, 1);
    if (lane.length === 0) this.lanes.delete(key);
  }
}
