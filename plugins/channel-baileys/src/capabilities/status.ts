import { STATUS_BROADCAST, UpstreamError, type MediaInput, type StatusCapability, type StatusStory } from '@parley/core';
import { generateMessageIDV2, proto, type AnyMessageContent, type MiscMessageGenerationOptions, type WAMessage } from '@whiskeysockets/baileys';
import { seconds } from '../mapping/record.js';
import type { AdapterRuntime } from '../runtime.js';
import { upstream } from '../util/errors.js';
import { normalizeJid } from '../util/jids.js';

/** Status stories (spec 4.13): messages to `status@broadcast`, visible to `statusJidList`. */
export function statusCapability(runtime: AdapterRuntime): StatusCapability {
  async function post(type: StatusStory['type'], content: AnyMessageContent, statusJidList: string[], extra: MiscMessageGenerationOptions = {}) {
    const socket = runtime.connection.openSocket();
    const list = statusJidList.map(normalizeJid);
    const sent: WAMessage | undefined = await upstream(`the ${type} status`, () =>
      socket.sendMessage(STATUS_BROADCAST, content, { ...extra, statusJidList: list, broadcast: true, timestamp: new Date(runtime.now()) }));
    if (!sent?.key.id) throw new UpstreamError(`WhatsApp did not accept the ${type} status`, { retryable: true });
    return { id: sent.key.id, type, statusJidList: list, timestamp: seconds(sent.messageTimestamp, Math.floor(runtime.now() / 1000)) };
  }
  const media = (m: MediaInput) => ({ data: m.data, mimetype: m.mimetype });
  return {
    text: (text, statusJidList, options) => post('text', { text, linkPreview: null }, statusJidList, {
      ...(options?.backgroundColor ? { backgroundColor: options.backgroundColor } : {}), ...(options?.font !== undefined ? { font: options.font } : {}),
    }),
    image: (image, caption, statusJidList) => {
      const { data, mimetype } = media(image);
      return post('image', { image: data, mimetype, ...(caption ? { caption } : {}) }, statusJidList);
    },
    video: (video, caption, statusJidList) => {
      const { data, mimetype } = media(video);
      return post('video', { video: data, mimetype, ...(caption ? { caption } : {}) }, statusJidList);
    },
    audio: (audio, statusJidList) => {
      const { data, mimetype } = media(audio);
      return post('audio', { audio: data, mimetype }, statusJidList);
    },
    async mention(jid, statusMsgId) {
      const socket = runtime.connection.openSocket();
      const to = normalizeJid(jid);
      const messageId = generateMessageIDV2(socket.user?.id);
      // WhatsApp tells a contact they were mentioned in a story with a protocol message naming it.
      const message: proto.IMessage = {
        statusMentionMessage: {
          message: {
            protocolMessage: {
              key: { remoteJid: STATUS_BROADCAST, fromMe: true, id: statusMsgId },
              type: proto.Message.ProtocolMessage.Type.STATUS_MENTION_MESSAGE,
            },
          },
        },
      };
      await upstream('the status mention', () => socket.relayMessage(to, message, { messageId }));
      return { id: messageId, type: 'mention', statusJidList: [to], timestamp: Math.floor(runtime.now() / 1000) };
    },
  };
}
