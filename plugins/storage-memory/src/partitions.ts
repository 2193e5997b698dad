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

/** Code-unit order, the same as SQLite's BINARY collation for the ids Parley stores. */
export function byId(a: { id: string }, b: { id: string }): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
