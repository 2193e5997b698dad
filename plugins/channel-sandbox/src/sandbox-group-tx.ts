import { type ChannelEventPayload, type Storage } from '@parley/core';
import { jidUser } from '@parley/whatsapp-proto';
import { GROUP_PICTURES_NAMESPACE, GROUPS_NAMESPACE, INVITES_NAMESPACE, type StoredGroup } from './sandbox-group-state.js';
import type { SandboxNetwork } from './sandbox-network.js';

/**
 * One unit of work over the shared group state: the groups it loaded and changed and the
 * notifications it owes the members' phones, written and sent together only when the work succeeds.
 */
export class GroupTx {
  private readonly cache = new Map<string, StoredGroup | null>();
  private readonly dirty = new Map<string, StoredGroup | null>();
  private readonly outbox = new Map<string, ChannelEventPayload[]>();
  private readonly dropped: StoredGroup[] = [];

  constructor(private readonly storage: Storage) {}

  async get(id: string): Promise<StoredGroup | null> {
    if (!this.cache.has(id)) this.cache.set(id, await this.storage.state.get<StoredGroup>(GROUPS_NAMESPACE, id));
    return this.cache.get(id)!;
  }

  put(g: StoredGroup): void {
    this.cache.set(g.id, g);
    this.dirty.set(g.id, g);
  }

  drop(g: StoredGroup): void {
    this.cache.set(g.id, null);
    this.dirty.set(g.id, null);
    this.dropped.push(g);
  }

  /** Queues events for the phones of these JIDs, in order. */
  notify(jids: Iterable<string>, ...events: ChannelEventPayload[]): void {
    for (const number of new Set([...jids].map(jidUser))) {
      const queued = this.outbox.get(number) ?? [];
      queued.push(...events);
      this.outbox.set(number, queued);
    }
  }

  async commit(network: SandboxNetwork): Promise<void> {
    for (const [id, g] of this.dirty) {
      if (g) await this.storage.state.put(GROUPS_NAMESPACE, id, g);
      else await this.storage.state.delete(GROUPS_NAMESPACE, id);
    }
    for (const g of this.dropped) {
      await this.storage.state.delete(INVITES_NAMESPACE, g.inviteCode);
      await this.storage.state.delete(GROUP_PICTURES_NAMESPACE, g.id);
    }
    for (const [number, events] of this.outbox) await network.send(number, { kind: 'notification', events });
  }
}
