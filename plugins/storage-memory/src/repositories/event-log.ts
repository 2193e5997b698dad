import type { EventLog, EventLogQuery, LoggedEvent } from '@parley/core';

/** Index of the first entry of `sorted` (by id) whose id is greater than `after`. */
function firstAfter(sorted: readonly LoggedEvent[], after: string | undefined): number {
  if (after === undefined) return 0;
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]!.id <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Inserts `entry` into `sorted` by id (at the end, almost always: ids grow with time). */
function insertSorted(sorted: LoggedEvent[], entry: LoggedEvent): void {
  const at = firstAfter(sorted, entry.id);
  if (at === sorted.length) sorted.push(entry);
  else sorted.splice(at, 0, entry);
}

/**
 * The event log in process memory: every entry in one array sorted by id, and each instance's in
 * its own (so one instance's replay does not walk the others'). Entries are frozen copies.
 */
export class MemoryEventLog implements EventLog {
  private all: LoggedEvent[] = [];
  private readonly byInstance = new Map<string, LoggedEvent[]>();
  private readonly ids = new Set<string>();

  async append(entries: LoggedEvent[]): Promise<void> {
    for (const entry of entries) {
      if (this.ids.has(entry.id)) continue;
      this.ids.add(entry.id);
      const copy = Object.freeze({ id: entry.id, instance: entry.instance, type: entry.type, at: entry.at, event: entry.event });
      insertSorted(this.all, copy);
      let own = this.byInstance.get(entry.instance);
      if (!own) this.byInstance.set(entry.instance, (own = []));
      insertSorted(own, copy);
    }
  }

  async read({ instance, after, limit }: EventLogQuery): Promise<LoggedEvent[]> {
    const sorted = instance === undefined ? this.all : this.byInstance.get(instance) ?? [];
    const from = firstAfter(sorted, after);
    return sorted.slice(from, from + limit).map((e) => ({ ...e }));
  }

  async purge(before: number): Promise<number> {
    const kept = this.all.filter((e) => e.at >= before);
    const count = this.all.length - kept.length;
    if (count === 0) return 0;
    for (const e of this.all) if (e.at < before) this.ids.delete(e.id);
    this.all = kept;
    for (const [instance, own] of this.byInstance) {
      const rest = own.filter((e) => e.at >= before);
      if (rest.length === 0) this.byInstance.delete(instance);
      else this.byInstance.set(instance, rest);
    }
    return count;
  }

  async clear(instance: string): Promise<void> {
    const own = this.byInstance.get(instance);
    if (!own) return;
    this.byInstance.delete(instance);
    for (const e of own) this.ids.delete(e.id);
    this.all = this.all.filter((e) => e.instance !== instance);
  }
}
