import {
  NotFoundError, STATUS_BROADCAST, UpstreamError, type MediaInput, type MessageContent, type StatusCapability, type StatusStory,
} from '@parley/core';
import { generateMessageIDV2, proto, type AnyMessageContent, type BinaryNode, type MiscMessageGenerationOptions, type WAMessage } from '@whiskeysockets/baileys';
import { messageJson, messageProto, seconds } from '../mapping/record.js';
import { upstream } from '../util/errors.js';
import { isLidJid, isPnJid, normalizeJid } from '../util/jids.js';
import { ownJid, type AdapterRuntime } from '../runtime.js';
import { channelNamespace } from '../labels/state-namespaces.js';
import type { BaileysSocket } from '../socket.js';

/** Stories live 24 hours. */
const STORY_TTL_SECONDS = 86_400;

/** A story this instance posted, kept so it can be mentioned later: the message as sent and its audience. */
interface PostedStory {
  message: MessageContent;
  statusJidList: string[];
  timestamp: number;
}

/**
 * The `<meta>` child WhatsApp's apps put on a story's stanza to name the contacts mentioned in it
 * (`<meta><mentioned_users><to jid=…/></mentioned_users></meta>`). Baileys rc14 has no builder for it
 * (`relayMessage` appends `additionalNodes` to the stanza as given).
 */
export function mentionedUsersNode(jids: string[]): BinaryNode {
  return {
    tag: 'meta', attrs: {},
    content: [{ tag: 'mentioned_users', attrs: {}, content: jids.map((jid) => ({ tag: 'to', attrs: { jid } })) }],
  };
}

/** The `<meta is_status_mention="true"/>` child that marks the mention message in the contact's chat. */
export const STATUS_MENTION_NODE: BinaryNode = { tag: 'meta', attrs: { is_status_mention: 'true' } };

/**
 * The default audience of a story, as WhatsApp's apps choose it ("My contacts"): the contacts of the
 * account's address book — those with a saved name (`name` comes only from the phone's address book,
 * through app-state contact actions or the contacts API; a stranger who wrote has only a push name) —
 * not every chat partner. A contact known by LID only goes under its number when WhatsApp told it,
 * else under the LID. The account itself is left out.
 */
async function addressBook(runtime: AdapterRuntime, socket: BaileysSocket): Promise<string[]> {
  const own = ownJid(socket);
  const audience = new Set<string>();
  for (const contact of await runtime.context.storage.contacts.list(runtime.context.instanceId)) {
    if (!contact.name) continue;
    let jid = normalizeJid(contact.id);
    if (isLidJid(jid)) {
      const pn = await socket.signalRepository.lidMapping.getPNForLID(jid).catch(() => null);
      if (pn) jid = normalizeJid(pn);
    }
    if ((isPnJid(jid) || isLidJid(jid)) && jid !== own) audience.add(jid);
  }
  return [...audience];
}

/** Status stories (spec 4.13): messages to `status@broadcast`, visible to `statusJidList`. */
export function statusCapability(runtime: AdapterRuntime): StatusCapability {
  const state = runtime.context.storage.state;
  const namespace = channelNamespace(runtime.context.instanceId, 'stories');
  const nowSeconds = () => Math.floor(runtime.now() / 1000);

  /** Forgets stories older than a day; a story is only ever mentioned while it is live. */
  async function prune(): Promise<void> {
    await runtime.stateMoved;
    for (const { id, value } of await state.list<PostedStory>(namespace)) {
      if (nowSeconds() - value.timestamp > STORY_TTL_SECONDS) await state.delete(namespace, id);
    }
  }

  async function post(type: StatusStory['type'], content: AnyMessageContent, statusJidList: string[], extra: MiscMessageGenerationOptions = {}) {
    const socket = runtime.connection.openSocket();
    const list = statusJidList.length > 0 ? [...new Set(statusJidList.map(normalizeJid))] : await addressBook(runtime, socket);
    const sent: WAMessage | undefined = await upstream(`the ${type} status`, () =>
      socket.sendMessage(STATUS_BROADCAST, content, { ...extra, statusJidList: list, broadcast: true, timestamp: new Date(runtime.now()) }));
    if (!sent?.key.id) throw new UpstreamError(`WhatsApp did not accept the ${type} status`, { retryable: true });
    const timestamp = seconds(sent.messageTimestamp, nowSeconds());
    await prune();
    await state.put(namespace, sent.key.id, { message: messageJson(sent.message), statusJidList: list, timestamp } satisfies PostedStory);
    return { id: sent.key.id, type, statusJidList: list, timestamp };
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

    /**
     * What WhatsApp's apps send for a mention: the story's stanza to `status@broadcast` for the
     * mentioned contact, carrying the `mentioned_users` meta node (which also shares the story with a
     * contact outside its audience), then a `statusMentionMessage` naming the story in the contact's
     * chat, marked with the `is_status_mention` meta node.
     */
    async mention(jid, statusMsgId) {
      const socket = runtime.connection.openSocket();
      const to = normalizeJid(jid);
      await runtime.stateMoved;
      const story = await state.get<PostedStory>(namespace, statusMsgId);
      if (!story || nowSeconds() - story.timestamp > STORY_TTL_SECONDS) {
        throw new NotFoundError(`status story ${statusMsgId}`, 'status_not_found');
      }
      await upstream('the mentioned story', () => socket.relayMessage(STATUS_BROADCAST, messageProto(story.message), {
        messageId: statusMsgId, statusJidList: [to], additionalNodes: [mentionedUsersNode([to])],
      }));
      if (!story.statusJidList.includes(to)) await state.put(namespace, statusMsgId, { ...story, statusJidList: [...story.statusJidList, to] });
      const messageId = generateMessageIDV2(socket.user?.id);
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
      await upstream('the status mention', () => socket.relayMessage(to, message, { messageId, additionalNodes: [STATUS_MENTION_NODE] }));
      return { id: messageId, type: 'mention', statusJidList: [to], timestamp: nowSeconds() };
    },
  };
}
