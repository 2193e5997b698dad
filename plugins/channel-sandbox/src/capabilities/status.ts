import { newMessageId, NotFoundError, STATUS_BROADCAST, type MediaInput, type OutgoingContent, type StatusCapability, type StatusStory } from '@parley/core';
import { jidUser, USER_SUFFIX } from '@parley/whatsapp-proto';
import { outgoingToProto } from '../content/outgoing-to-proto.js';
import { toWire } from '../content/received-media.js';
import { emitOwnCopy } from '../own-copy.js';
import type { SandboxDevice } from '../sandbox-device.js';
import type { MessagePacket, WireMedia } from '../sandbox-packets.js';

/** Stories stay visible (and mentionable) this long, as on WhatsApp. */
export const STORY_TTL_SECONDS = 86_400;

/** A story as its poster's phone keeps it, to mention it later. */
interface PostedStory {
  story: StatusStory;
  message: Record<string, unknown>;
  media?: WireMedia;
}

/** `#RRGGBB` or `#AARRGGBB` as the ARGB integer WhatsApp stores (opaque when alpha is absent). */
function argbOf(color: string): number {
  const hex = color.replace(/^#/, '');
  return Number.parseInt(hex.length === 6 ? `ff${hex}` : hex, 16) >>> 0;
}

/**
 * Status stories of a sandbox phone: a story goes to `status@broadcast` and travels to the phone of
 * every listed contact, which receives it as a message in its `status@broadcast` chat (the server
 * keeps it only when the receiver's `receive_status_message` flag is on). The poster's phone emits
 * its own copy, so the poster's stories are in its `status@broadcast` chat too.
 */
export class SandboxStatus implements StatusCapability {
  constructor(private readonly device: SandboxDevice) {}

  private get storiesNamespace(): string {
    return `${this.device.namespace}:stories`;
  }

  text(text: string, statusJidList: string[], options: { backgroundColor?: string; font?: number } = {}): Promise<StatusStory> {
    this.device.requireConnected();
    const message = {
      extendedTextMessage: {
        text,
        ...(options.backgroundColor ? { backgroundArgb: argbOf(options.backgroundColor) } : {}),
        ...(options.font !== undefined ? { font: options.font } : {}),
      },
    };
    return this.post('text', message, undefined, statusJidList);
  }

  image(image: MediaInput, caption: string | undefined, statusJidList: string[]): Promise<StatusStory> {
    return this.postContent('image', { type: 'image', media: image, caption }, statusJidList);
  }

  video(video: MediaInput, caption: string | undefined, statusJidList: string[]): Promise<StatusStory> {
    return this.postContent('video', { type: 'video', media: video, caption }, statusJidList);
  }

  audio(audio: MediaInput, statusJidList: string[]): Promise<StatusStory> {
    return this.postContent('audio', { type: 'audio', media: audio }, statusJidList);
  }

  /**
   * Tells `jid` it is mentioned in one of this phone's live stories: a `statusMentionMessage` in
   * their direct chat, and the story itself when it was not shared with them yet (as WhatsApp does).
   */
  async mention(jid: string, statusMsgId: string): Promise<StatusStory> {
    this.device.requireConnected();
    const { storage } = this.device.ctx;
    const posted = await storage.state.get<PostedStory>(this.storiesNamespace, statusMsgId);
    const now = Math.floor(this.device.network.now() / 1000);
    if (!posted || now - posted.story.timestamp > STORY_TTL_SECONDS) {
      throw new NotFoundError(`status story ${statusMsgId}`, 'status_not_found');
    }
    if (!posted.story.statusJidList.includes(jid)) {
      posted.story.statusJidList.push(jid);
      await storage.state.put(this.storiesNamespace, statusMsgId, posted);
      await this.deliver(jidUser(jid), {
        id: statusMsgId, groupJid: STATUS_BROADCAST, timestamp: posted.story.timestamp, message: posted.message, media: posted.media,
      });
    }
    const id = newMessageId();
    const message = {
      statusMentionMessage: {
        message: { protocolMessage: { key: { remoteJid: STATUS_BROADCAST, fromMe: true, id: statusMsgId }, type: 'STATUS_MENTION_MESSAGE' } },
      },
    };
    emitOwnCopy(this.device, { id, chatJid: jid, timestamp: now, message });
    await this.deliver(jidUser(jid), { id, timestamp: now, message });
    return { id, type: 'mention', statusJidList: [jid], timestamp: now };
  }

  private postContent(type: StatusStory['type'], content: Extract<OutgoingContent, { media: MediaInput }>, statusJidList: string[]): Promise<StatusStory> {
    this.device.requireConnected();
    return this.post(type, outgoingToProto(content, this.device.network.now()), toWire(content.media), statusJidList);
  }

  /** The sandbox keeps no address book: an empty list shares with every stored contact but the phone itself. */
  private async defaultAudience(): Promise<string[]> {
    const own = this.device.jid;
    const contacts = await this.device.ctx.storage.contacts.list(this.device.instanceId);
    return contacts.map((c) => c.id).filter((id) => id.endsWith(USER_SUFFIX) && id !== own);
  }

  private async post(type: StatusStory['type'], message: Record<string, unknown>, media: WireMedia | undefined, statusJidList: string[]): Promise<StatusStory> {
    const timestamp = Math.floor(this.device.network.now() / 1000);
    await this.forgetExpired(timestamp);
    const audience = statusJidList.length > 0 ? statusJidList : await this.defaultAudience();
    const story: StatusStory = { id: newMessageId(), type, statusJidList: [...new Set(audience)], timestamp };
    await this.device.ctx.storage.state.put(this.storiesNamespace, story.id, { story, message, ...(media ? { media } : {}) } satisfies PostedStory);
    emitOwnCopy(this.device, { id: story.id, chatJid: STATUS_BROADCAST, timestamp, message });
    for (const jid of story.statusJidList) {
      await this.deliver(jidUser(jid), { id: story.id, groupJid: STATUS_BROADCAST, timestamp, message, media });
    }
    this.device.ctx.emit({
      type: 'message.status', messageId: story.id, chatJid: STATUS_BROADCAST, recipientId: jidUser(STATUS_BROADCAST), status: 'sent', timestamp,
    });
    return story;
  }

  /** Drops stories past their 24 hours, so a phone keeps only the live ones. */
  private async forgetExpired(now: number): Promise<void> {
    const { state } = this.device.ctx.storage;
    for (const { id, value } of await state.list<PostedStory>(this.storiesNamespace)) {
      if (now - value.story.timestamp > STORY_TTL_SECONDS) await state.delete(this.storiesNamespace, id);
    }
  }

  private async deliver(number: string, story: { id: string; timestamp: number; message: Record<string, unknown>; groupJid?: string; media?: WireMedia }): Promise<void> {
    const device = this.device;
    const packet: MessagePacket = {
      kind: 'message', id: story.id, from: device.number, fromName: await device.displayName(), timestamp: story.timestamp, message: story.message,
      ...(story.groupJid ? { groupJid: story.groupJid } : {}), ...(story.media ? { media: story.media } : {}),
    };
    await device.network.send(number, packet);
  }
}
