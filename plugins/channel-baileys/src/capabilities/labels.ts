import { NotFoundError, type Label, type LabelsCapability } from '@parley/core';
import { newLabel } from '@parley/whatsapp-proto';
import { ownJid, type AdapterRuntime } from '../runtime.js';
import { upstream } from '../util/errors.js';

/**
 * Labels (spec 4.7; WhatsApp Business accounts). Changes go to WhatsApp as app-state patches; the
 * label list and chat membership come from the label store that `labels.edit` / `labels.association`
 * events keep. Baileys reports none of the instance's own patches, so each change WhatsApp took is
 * written to the store here and the chats it touched are emitted with their new `labels`.
 */
export function labelsCapability(runtime: AdapterRuntime): LabelsCapability {
  const { labels, context } = runtime;
  async function existing(labelId: string): Promise<Label> {
    const label = await labels.get(labelId);
    if (!label) throw new NotFoundError(`label ${labelId}`, 'label_not_found');
    return label;
  }
  async function emitLabelsOf(jids: string[]): Promise<void> {
    if (jids.length > 0) context.emit({ type: 'chats.upsert', chats: await labels.chatLabels(jids) });
  }
  return {
    list: () => labels.list(),
    async create(name, color) {
      const socket = runtime.connection.openSocket();
      const label = newLabel(await labels.list(), await labels.nextId(), name, color);
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
      await emitLabelsOf([jid]);
    },
    async removeFromChat(labelId, jid) {
      const socket = runtime.connection.openSocket();
      await existing(labelId);
      if (!(await labels.chats(labelId)).includes(jid)) throw new NotFoundError(`chat ${jid} with label ${labelId}`, 'label_not_on_chat');
      await upstream('the chat label removal', () => socket.removeChatLabel(jid, labelId));
      await labels.associate(labelId, jid, false);
      await emitLabelsOf([jid]);
    },
    async delete(labelId) {
      const socket = runtime.connection.openSocket();
      const label = await existing(labelId);
      const carrying = await labels.chats(labelId);
      await upstream('the label deletion', () => socket.addLabel(ownJid(socket), { ...label, deleted: true }));
      await labels.remove(labelId);
      await emitLabelsOf(carrying);
    },
  };
}
