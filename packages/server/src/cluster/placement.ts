import { createHash } from 'node:crypto';
import type { NodeRecord } from '@parley/core';

/** Nodes that can take instances: alive and not draining. */
export function candidates(nodes: NodeRecord[]): NodeRecord[] {
  return nodes.filter((n) => n.alive && !n.draining);
}

/** The least-loaded node able to take instances (ties: the smallest id), or undefined. */
export function leastLoaded(nodes: NodeRecord[]): NodeRecord | undefined {
  return candidates(nodes).sort((a, b) => a.load - b.load || a.id.localeCompare(b.id))[0];
}

/** The number of instances each able node should hold: the total (with `extra` waiting) spread evenly, rounded up. */
export function fairShare(nodes: NodeRecord[], extra = 0): number {
  const able = candidates(nodes);
  if (able.length === 0) return 0;
  const total = nodes.filter((n) => n.alive).reduce((sum, n) => sum + n.load, 0) + extra;
  return Math.ceil(total / able.length);
}

/**
 * Orders instances differently per node (a hash of node and instance), so nodes claiming from one
 * list of orphans at the same moment mostly try different instances first.
 */
export function spreadOrder(node: string, instances: string[]): string[] {
  const rank = (id: string) => createHash('sha1').update(`${node}\0${id}`).digest().readUInt32BE(0);
  return instances.map((id) => ({ id, r: rank(id) })).sort((a, b) => a.r - b.r).map((x) => x.id);
}
