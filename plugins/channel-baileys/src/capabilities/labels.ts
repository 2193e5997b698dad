import { NotFoundError, type Label, type LabelsCapability } from '@parley/core';
import { ownJid, type AdapterRuntime } from '../runtime.js';
import { upstream } from '../util/errors.js';

/**
 * Labels (spec 4.7; WhatsApp Business accounts). Changes go to WhatsApp as app-state patches; the
 * label list and chat membership come from the label store that `labels.edit` / `labels.association`
 * events keep.
 */
export function labelsCapability(runtime: AdapterRuntime): LabelsCapability {
  const { labels } = runtime;
  async function existing(labelId: string): Promise<Label> {
    const label = await labels.get(labelId);
    if (!label) throw new NotFoundError('label');
    return label;
  }
  return {
    list: () => labels.list(),
    async create(name, color = 0) {
      const socket = runtime.connection.openSocket();
      const label: Label = { id: await labels.nextId(), name, color };
      await upstream('the label creation', () => socket.addLabel(ownJid(socket), { ...label, deleted: false }));
      await labels.put(label);
      return label;
    },
    async chats(labelId) {
      await existing(labelId);
      return labels.chats(labelId);
    },
    async addToChat(labelId, jid) {
      const socket = runtime.connection.openSocket();
      await existing(labelId);
      await upstream('the chat label', () => socket.addChatLabel(jid, labelId));
      await labels.associate(labelId, jid, true);
    },
    async removeFromChat(labelId, jid) {
      const socket = runtime.connection.openSocket();
      await existing(labelId);
      await upstream('the chat label removal', () => socket.removeChatLabel(jid, labelId));
      await labels.associate(labelId, jid, false);
    },
    async delete(labelId) {
      const socket = runtime.connection.openSocket();
      const label = await existing(labelId);
      await upstream('the label deletion', () => socket.addLabel(ownJid(socket), { ...label, deleted: true }));
      await labels.remove(labelId);
    },
  };
}
