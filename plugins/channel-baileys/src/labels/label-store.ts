import type { Label, StateRepository } from '@parley/core';

/**
 * Labels and their chats, kept in the storage back end's state documents because WhatsApp only
 * pushes them (app-state sync `labels.edit` / `labels.association`); there is no query for them.
 * Namespaces are per instance: `baileys.<instance>.labels` and `baileys.<instance>.label-chats`.
 */
export class LabelStore {
  private readonly labelsNs: string;
  private readonly chatsNs: string;
  private readonly prefix: string;
  /** Read-modify-write of chat lists is serialized so concurrent events do not lose updates. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly state: StateRepository, instanceId: string) {
    this.prefix = `baileys.${instanceId}.`;
    this.labelsNs = `${this.prefix}labels`;
    this.chatsNs = `${this.prefix}label-chats`;
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
    return this.serial(() => this.state.clearPrefix(this.prefix));
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work);
    this.queue = next.catch(() => undefined);
    return next;
  }
}
