import { NotFoundError, ownMember, type Label, type LabelsCapability } from '@parley/core';
import { newLabel } from '@parley/whatsapp-proto';
import type { SandboxDevice } from '../sandbox-device.js';

/** State document of a phone's labels. */
const LABELS = 'labels';

interface LabelBook {
  /** Next numeric id (WhatsApp label ids are small integers as text). */
  next: number;
  labels: Label[];
  /** Chat JIDs carrying each label, by label id. */
  chats: Record<string, string[]>;
}

async function readBook(device: SandboxDevice): Promise<LabelBook> {
  return (await device.ctx.storage.state.get<LabelBook>(device.namespace, LABELS)) ?? { next: 1, labels: [], chats: {} };
}

/** Labels of a chat, in label order. */
function labelsOfChat(book: LabelBook, jid: string): string[] {
  return book.labels.filter((l) => ownMember(book.chats, l.id)?.includes(jid)).map((l) => l.id);
}

/** Drops a deleted chat from every label (no event: the chat is gone). */
export async function forgetLabelledChat(device: SandboxDevice, jid: string): Promise<void> {
  await device.exclusive(LABELS, async () => {
    const book = await readBook(device);
    let changed = false;
    for (const id of Object.keys(book.chats)) {
      const kept = book.chats[id]!.filter((j) => j !== jid);
      if (kept.length !== book.chats[id]!.length) {
        book.chats[id] = kept;
        changed = true;
      }
    }
    if (changed) await device.ctx.storage.state.put(device.namespace, LABELS, book);
  });
}

/**
 * WhatsApp Business labels on the sandbox: kept in the phone's state (at most 20, unique names,
 * palette colors 0–19); attaching and detaching emits the chat with its new `labels`, so the stored
 * chats show them.
 */
export class SandboxLabels implements LabelsCapability {
  constructor(private readonly device: SandboxDevice) {}

  /** Runs `change` on the label book atomically and saves it. */
  private update<T>(change: (book: LabelBook) => T): Promise<T> {
    return this.device.exclusive(LABELS, async () => {
      const book = await readBook(this.device);
      const result = change(book);
      await this.device.ctx.storage.state.put(this.device.namespace, LABELS, book);
      return result;
    });
  }

  private static find(book: LabelBook, labelId: string): Label {
    const label = book.labels.find((l) => l.id === labelId);
    if (!label) throw new NotFoundError(`label ${labelId}`, 'label_not_found');
    return label;
  }

  async list(): Promise<Label[]> {
    this.device.requireConnected();
    return (await readBook(this.device)).labels;
  }

  async create(name: string, color?: number): Promise<Label> {
    this.device.requireConnected();
    return this.update((book) => {
      const label = newLabel(book.labels, String(book.next), name, color);
      book.next++;
      book.labels.push(label);
      book.chats[label.id] = [];
      return label;
    });
  }

  async chats(labelId: string): Promise<string[]> {
    this.device.requireConnected();
    const book = await readBook(this.device);
    SandboxLabels.find(book, labelId);
    return ownMember(book.chats, labelId) ?? [];
  }

  async addToChat(labelId: string, jid: string): Promise<void> {
    this.device.requireConnected();
    const labels = await this.update((book) => {
      SandboxLabels.find(book, labelId);
      const chats = ownMember(book.chats, labelId) ?? (book.chats[labelId] = []);
      if (!chats.includes(jid)) chats.push(jid);
      return labelsOfChat(book, jid);
    });
    this.device.ctx.emit({ type: 'chats.upsert', chats: [{ id: jid, labels }] });
  }

  async removeFromChat(labelId: string, jid: string): Promise<void> {
    this.device.requireConnected();
    const labels = await this.update((book) => {
      SandboxLabels.find(book, labelId);
      const chats = ownMember(book.chats, labelId) ?? [];
      if (!chats.includes(jid)) throw new NotFoundError(`chat ${jid} with label ${labelId}`, 'label_not_on_chat');
      book.chats[labelId] = chats.filter((j) => j !== jid);
      return labelsOfChat(book, jid);
    });
    this.device.ctx.emit({ type: 'chats.upsert', chats: [{ id: jid, labels }] });
  }

  async delete(labelId: string): Promise<void> {
    this.device.requireConnected();
    const changed = await this.update((book) => {
      SandboxLabels.find(book, labelId);
      const chats = ownMember(book.chats, labelId) ?? [];
      book.labels = book.labels.filter((l) => l.id !== labelId);
      delete book.chats[labelId];
      return chats.map((jid) => ({ id: jid, labels: labelsOfChat(book, jid) }));
    });
    if (changed.length) this.device.ctx.emit({ type: 'chats.upsert', chats: changed });
  }
}
