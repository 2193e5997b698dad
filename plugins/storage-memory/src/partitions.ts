/** Maps partitioned by a key (an instance id, a namespace), created on first write. */
export class Partitions<V> {
  private readonly partitions = new Map<string, Map<string, V>>();

  /** The partition, created when missing: for writes. */
  of(partition: string): Map<string, V> {
    let map = this.partitions.get(partition);
    if (!map) {
      map = new Map();
      this.partitions.set(partition, map);
    }
    return map;
  }

  /** The partition or an empty map, without creating it: for reads. */
  peek(partition: string): ReadonlyMap<string, V> {
    return this.partitions.get(partition) ?? new Map();
  }

  /** The partition when it exists, for in-place deletes. */
  existing(partition: string): Map<string, V> | undefined {
    return this.partitions.get(partition);
  }

  delete(partition: string): void {
    this.partitions.delete(partition);
  }

  /** Partition names, in creation order. */
  names(): string[] {
    return [...this.partitions.keys()];
  }
}

/**
 * A keyset page of a partition: up to `limit` of its keys after `after`, in code-unit order (sorts
 * the partition's keys, which a memory back end's sizes afford).
 */
export function keysAfter(partition: ReadonlyMap<string, unknown>, after: string | undefined, limit: number): string[] {
  const keys = [...partition.keys()].filter((key) => after === undefined || key > after).sort();
  return keys.slice(0, limit);
}

/** Code-unit order, the same as SQLite's BINARY collation for the ids Parley stores. */
export function byId(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
