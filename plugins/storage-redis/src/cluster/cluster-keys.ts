/** Key names of cluster coordination, all under the storage's key prefix (`<prefix>cluster:…`). */
export class ClusterKeys {
  readonly stem: string;

  constructor(prefix: string) {
    this.stem = `${prefix}cluster:`;
  }

  /** A live node's entry (JSON, expires with the node's heartbeat time to live). */
  node(id: string): string { return `${this.stem}node:${id}`; }
  /** A node's last entry, kept after it died (for the admin view and for finding its orphans). */
  nodeLast(id: string): string { return `${this.stem}node-last:${id}`; }
  get nodes(): string { return `${this.stem}nodes`; }
  /** `<node>|<token>`, expiring with the lease. */
  lease(instance: string): string { return `${this.stem}lease:${instance}`; }
  /** The instance's current fencing token (kept after the lease expires). */
  fence(instance: string): string { return `${this.stem}fence:${instance}`; }
  get fenceSeq(): string { return `${this.stem}fence-seq`; }
  /** Instances a node holds (set), kept after it died. */
  held(node: string): string { return `${this.stem}held:${node}`; }
  /** Instance → node that last took it. */
  get holder(): string { return `${this.stem}holder`; }
  /** Instances waiting for an owner (sorted set by when they were offered). */
  get unowned(): string { return `${this.stem}unowned`; }
  move(instance: string): string { return `${this.stem}move:${instance}`; }
  /** Claimed by the first node to announce something (expires). */
  once(key: string): string { return `${this.stem}once:${key}`; }
}
