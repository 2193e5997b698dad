import type { Label, StateRepository } from '@parley/core';
import { channelNamespace } from './state-namespaces.js';

/**
 * Labels and their chats, kept in the storage back end's state documents because WhatsApp only
 * pushes them (app-state sync `labels.edit` / `labels.association`); there is no query for them.
 * Namespaces are per instance: `<instance>:baileys.labels` and `<instance>:baileys.label-chats`.
 */
export class LabelStore {
  private readonly labelsNs: string;
  private readonly chatsNs: string;
  /** Read-modify-write of chat lists is serialized so concurrent events do not lose updates. */
  private queue: Promise<unknown>;

  /** `ready`: what must finish before the store is read (the move out of earlier versions' namespaces). */
  constructor(private readonly state: StateRepository, instanceId: string, ready: Promise<unknown> = Promise.resolve()) {
    this.labelsNs = channelNamespace(instanceId, 'labels');
    this.chatsNs = channelNamespace(instanceId, 'label-chats');
    this.queue = ready.catch(() => undefined);
  }

  async list(): Promise<Label[]> {
    await this.queue;
    const docs = await this.state.list<Label>(this.labelsNs);
    return docs.map((d) => d.value);
  }

  async get(id: string): Promise<Label | null> {
    await this.queue;
    return this.state.get<Label>(this.labelsNs, id);
  }

  /** Next free numeric id (WhatsApp label ids are small decimal numbers). */
  async nextId(): Promise<string> {
    const labels = await this.list();
    const max = labels.reduce((m, l) => (/^\d+$/.test(l.id) ? Math.max(m, Number(l.id)) : m), 0);
    return String(max + 1);
  }

  put(label: Label): Promise<void> {
    return this.serial(() => this.state.put(this.labelsNs, label.id, label));
  }

  remove(id: string): Promise<void> {
    return this.serial(async () => {
      await this.state.delete(this.labelsNs, id);
      await this.state.delete(this.chatsNs, id);
    });
  }

  async chats(labelId: string): Promise<string[]> {
    await this.queue;
    return (await this.state.get<string[]>(this.chatsNs, labelId)) ?? [];
  }

  /** The ids of the labels a chat carries, in label order. */
  async labelsOf(chatJid: string): Promise<string[]> {
    const out: string[] = [];
    for (const label of await this.list()) if ((await this.chats(label.id)).includes(chatJid)) out.push(label.id);
    return out;
  }

  /** The chats `jids` with the ids of the labels each carries now: the `chats.upsert` a label change causes. */
  chatLabels(jids: readonly string[]): Promise<Array<{ id: string; labels: string[] }>> {
    return Promise.all(jids.map(async (id) => ({ id, labels: await this.labelsOf(id) })));
  }

  associate(labelId: string, chatJid: string, add: boolean): Promise<void> {
    return this.serial(async () => {
      const current = new Set((await this.state.get<string[]>(this.chatsNs, labelId)) ?? []);
      if (add) current.add(chatJid);
      else current.delete(chatJid);
      if (current.size === 0) await this.state.delete(this.chatsNs, labelId);
      else await this.state.put(this.chatsNs, labelId, [...current].sort());
    });
  }

  /** Deletes every label document of the instance (logout). */
  clear(): Promise<void> {
    return this.serial(async () => {
      await this.state.clearPrefix(this.labelsNs);
      await this.state.clearPrefix(this.chatsNs);
    });
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work);
    this.queue = next.catch(() => undefined);
    return next;
  }
}
