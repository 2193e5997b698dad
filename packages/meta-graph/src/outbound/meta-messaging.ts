import {
  CapabilityNotSupportedError, UpstreamError, ValidationError,
  type MediaBlob, type MessageRecord, type MessagingCapability, type PresenceRequest, type SendRequest,
} from '@parley/core';
import type { MetaChannelProfile } from '../channel-profile.js';
import type { GraphClient, GraphCredentials } from '../graph/graph-client.js';
import type { MetaMediaDownloader } from '../inbound/media-download.js';
import {
  ATTACHMENT_KIND, META_SEND_TYPES, PRESENCE_ACTIONS, attachmentMessage, isMetaSendable, messageRequest, reactionRequest,
  senderActionRequest, textualMessage, uploadForm, type MediaContent,
} from './outgoing-message.js';
import { outgoingRecord } from './outgoing-record.js';
import type { SentIds } from './sent-ids.js';

/** What the Send API answers. */
interface SendAnswer {
  recipient_id?: string;
  message_id?: string;
}

const USER_ID = /^\d{1,32}$/;
const SEND_PATH = 'me/messages';
const UPLOAD_PATH = 'me/message_attachments';

/**
 * Sending through Meta's Send API (`POST /{version}/me/messages`), shared by both channels. Media go
 * by URL when the caller gave one (Meta fetches it) and through the attachment upload API otherwise
 * (base64 input). Captions, which Meta attachments cannot carry, follow as a text message.
 */
export class MetaMessaging implements MessagingCapability {
  constructor(
    private readonly profile: MetaChannelProfile,
    private readonly client: GraphClient,
    private readonly credentials: () => Promise<GraphCredentials>,
    private readonly nowSeconds: () => number,
    private readonly media: MetaMediaDownloader,
    private readonly sent: SentIds,
  ) {}

  supports(type: SendRequest['content']['type']): boolean {
    return META_SEND_TYPES.has(type);
  }

  async send(request: SendRequest): Promise<MessageRecord> {
    const content = request.content;
    if (!isMetaSendable(content)) throw new CapabilityNotSupportedError(this.profile.channel, `sending ${content.type} messages`);
    const quotedId = request.quoted?.key.id;

    if (content.type === 'reaction') {
      const to = this.recipient(content.target.remoteJid || request.to);
      const body = reactionRequest(this.profile, to, content.target.id, content.emoji);
      await this.client.postJson<SendAnswer>(SEND_PATH, await this.credentials(), body);
      // Reactions get no message id from Meta; one reaction per message stands, so key it by the target.
      return outgoingRecord(this.profile.channel, to, `${content.target.id}-reaction`, content, this.nowSeconds());
    }

    const to = this.recipient(request.to);
    if (content.type === 'image' || content.type === 'audio' || content.type === 'video' || content.type === 'document') {
      const message = await this.mediaMessage(content);
      const id = await this.sendMessage(to, message, quotedId);
      const caption = content.type === 'audio' ? undefined : content.caption;
      if (caption) await this.sendCaption(to, caption, id);
      return outgoingRecord(this.profile.channel, to, id, content, this.nowSeconds(), quotedId);
    }
    const id = await this.sendMessage(to, textualMessage(this.profile, content), quotedId);
    return outgoingRecord(this.profile.channel, to, id, content, this.nowSeconds(), quotedId);
  }

  async sendPresence(request: PresenceRequest): Promise<void> {
    const to = this.recipient(request.to);
    await this.client.postJson<SendAnswer>(SEND_PATH, await this.credentials(), senderActionRequest(to, PRESENCE_ACTIONS[request.status]));
  }

  /** The attachment of a received message, from Meta's CDN link (which expires: see {@link MetaMediaDownloader}). */
  downloadMedia(record: MessageRecord): Promise<MediaBlob | null> {
    return this.media.download(record);
  }

  private recipient(to: string): string {
    const value = to.trim();
    if (!USER_ID.test(value)) {
      throw new ValidationError(`body.to must be the ${this.profile.userIdName} of the recipient (digits)`, { field: 'body.to' });
    }
    return value;
  }

  private async sendMessage(to: string, message: Record<string, unknown>, replyTo?: string): Promise<string> {
    const answer = await this.client.postJson<SendAnswer>(SEND_PATH, await this.credentials(), messageRequest(this.profile, to, message, replyTo));
    if (typeof answer.message_id !== 'string' || answer.message_id === '') {
      throw new UpstreamError(`${this.profile.label} Graph API accepted the message without answering its message_id`);
    }
    this.sent.add(answer.message_id);
    return answer.message_id;
  }

  private async mediaMessage(content: MediaContent): Promise<Record<string, unknown>> {
    const kind = ATTACHMENT_KIND[content.type];
    if (content.media.sourceUrl) return attachmentMessage(kind, { url: content.media.sourceUrl });
    const fileName = content.type === 'document' ? content.fileName : (content.media.fileName ?? defaultFileName(content));
    const answer = await this.client.postForm<{ attachment_id?: string }>(
      UPLOAD_PATH, await this.credentials(), uploadForm(this.profile, kind, content.media, fileName),
    );
    if (typeof answer.attachment_id !== 'string' || answer.attachment_id === '') {
      throw new UpstreamError(`${this.profile.label} Graph API accepted the upload without answering its attachment_id`);
    }
    return attachmentMessage(kind, { attachmentId: answer.attachment_id });
  }

  private async sendCaption(to: string, caption: string, mediaId: string): Promise<void> {
    try {
      await this.sendMessage(to, { text: caption });
    } catch (err) {
      if (!(err instanceof UpstreamError)) throw err;
      // The media went out: say so, so the caller does not resend it.
      throw new UpstreamError(`${this.profile.label} sent the media (message ${mediaId}) but not its caption: ${err.message}`, {
        ...(err.details as Record<string, unknown>), mediaMessageId: mediaId,
      });
    }
  }
}

/** Base64 input carries no name: `image.png` and the like, from the MIME subtype. */
function defaultFileName(content: MediaContent): string {
  const subtype = /^[\w-]+\/([\w.+-]+)/.exec(content.media.mimetype)?.[1];
  return subtype ? `${content.type}.${subtype}` : content.type;
}
