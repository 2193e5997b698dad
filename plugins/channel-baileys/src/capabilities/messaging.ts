import { ConflictError, MediaTooLargeError, UpstreamError, type CallLinkType, type MediaBlob, type MessageRecord, type MessagingCapability, type OutgoingType, type PresenceRequest, type SendRequest } from '@parley/core';
import { toJid } from '@parley/whatsapp-proto';
import { generateMessageIDV2, generateWAMessageFromContent, getContentType, isJidGroup, normalizeMessageContent, proto, type WAMessage } from '@whiskeysockets/baileys';
import { SEND_TYPES } from '@parley/whatsapp-proto';
import { relayOptionsOf } from '../events/resend.js';
import { outboundPlan, sendChat } from '../mapping/outbound-content.js';
import { messageJson, messageProto, recordToWAMessage, seconds } from '../mapping/record.js';
import { ownJid, type AdapterRuntime } from '../runtime.js';
import { upstream } from '../util/errors.js';
import { disappearingTimer, memberMetadata, requireMayPost } from './disappearing.js';
import { keepRenewedMedia } from '../media/media-retry.js';
import { asGroupNames } from './group-addressing.js';
import { createCallLink, prepareSend } from './outgoing-prep.js';

const MEDIA_TYPES = new Set(['imageMessage', 'videoMessage', 'audioMessage', 'documentMessage', 'stickerMessage', 'ptvMessage']);
const DEFAULT_MIME: Record<string, string> = {
  imageMessage: 'image/jpeg', videoMessage: 'video/mp4', ptvMessage: 'video/mp4', audioMessage: 'audio/ogg; codecs=opus',
  documentMessage: 'application/octet-stream', stickerMessage: 'image/webp',
};

/** The record answered for a fresh send (spec 2.4, status `PENDING`). */
function sentRecord(sent: WAMessage, jid: string, nowSeconds: number): MessageRecord {
  return {
    key: { remoteJid: sent.key.remoteJid ?? jid, fromMe: true, id: sent.key.id! },
    message: messageJson(sent.message),
    messageTimestamp: String(seconds(sent.messageTimestamp, nowSeconds)),
    status: 'PENDING',
    provider: 'whatsapp',
  };
}

/** Sending (spec 4.2, 4.3), presence, call links and media download over Baileys. */
export function messagingCapability(runtime: AdapterRuntime): MessagingCapability {
  return {
    supports: (type: OutgoingType) => SEND_TYPES[type] === true,
    extras: { mentions: true, linkPreview: true },

    resolveRecipient: (to: string) => runtime.recipients.resolve(runtime.connection.openSocket(), toJid(to)),

    async send(request: SendRequest): Promise<MessageRecord> {
      const socket = runtime.connection.openSocket();
      // Before anything is fetched or created for the send (call links, product cards).
      await requireMayPost(runtime, socket, sendChat(request));
      const { content, extras } = await prepareSend(runtime, socket, request.content);
      const planned = outboundPlan({ ...request, content }, { now: () => runtime.now(), ...extras });
      const timestamp = new Date(runtime.now());
      const nowSeconds = Math.floor(runtime.now() / 1000);
      const jid = await runtime.recipients.resolve(socket, planned.jid);
      // In a LID-addressed group, members named by LID as WhatsApp's apps name them (mentions, quotes, reactions, pins).
      const { plan, quoted } = await asGroupNames(runtime, socket, jid, { plan: planned, quoted: request.quoted ? recordToWAMessage(request.quoted) : undefined });
      const timer = await disappearingTimer(runtime, socket, jid);
      const ephemeral = timer > 0 ? { ephemeralExpiration: timer } : {};
      // The id is chosen here so the server's ack of it can be told from the socket's other stanzas.
      const messageId = request.id ?? generateMessageIDV2(socket.user?.id);
      runtime.acks.expect(messageId);
      if (plan.via === 'send') {
        const sent = await upstream(`the ${content.type} message`, () => socket.sendMessage(jid, plan.content, {
          timestamp, messageId, ...(quoted ? { quoted } : {}), ...ephemeral,
        }));
        if (!sent?.key.id) throw new UpstreamError(`WhatsApp did not accept the ${content.type} message`, { retryable: true });
        if (sent.message) runtime.acks.relayed(messageId, { jid, message: sent.message, options: relayOptionsOf(plan.content) });
        return sentRecord(sent, jid, nowSeconds);
      }
      const message = generateWAMessageFromContent(jid, plan.message, {
        userJid: ownJid(socket), timestamp, messageId, ...(quoted ? { quoted } : {}), ...ephemeral,
      });
      const options = plan.additionalNodes ? { additionalNodes: plan.additionalNodes } : {};
      await upstream(`the ${content.type} message`, () => socket.relayMessage(jid, message.message!, { messageId: message.key.id!, ...options }));
      runtime.acks.relayed(messageId, { jid, message: message.message!, options });
      return sentRecord(message, jid, nowSeconds);
    },

    async sendPresence(request: PresenceRequest): Promise<void> {
      const socket = runtime.connection.openSocket();
      const jid = toJid(request.to);
      // Baileys drops an online/offline presence while the account has no push name (Socket/chats.js
      // sendPresenceUpdate: "no name present, ignoring presence update request"): answering 200 would lie.
      if ((request.status === 'available' || request.status === 'unavailable') && !socket.authState.creds.me?.name) {
        throw new ConflictError('WhatsApp has not told this account its profile name yet (the phone sends it with its first history '
          + 'sync), and without one it takes no online or offline presence: try again shortly', 'no_push_name');
      }
      // A chat state to a group goes to its members (`<chatstate to="…@g.us">`): only a member may send one.
      if (isJidGroup(jid)) await memberMetadata(runtime, socket, jid);
      await upstream('the presence update', () => socket.sendPresenceUpdate(request.status, jid));
    },

    async createCallLink(type: CallLinkType): Promise<string> {
      return createCallLink(runtime.connection.openSocket(), type);
    },

    async downloadMedia(record: MessageRecord): Promise<MediaBlob | null> {
      const content = normalizeMessageContent(messageProto(record.message));
      const type = getContentType(content ?? undefined);
      if (!content || !type || !MEDIA_TYPES.has(type)) return null;
      const media = content[type] as proto.Message.IImageMessage & { fileName?: string | null };
      if (!media?.directPath && !media?.url) return null;
      // The sender chose `fileLength` (it can be small and false: the download counts too), but a larger one is believed.
      const declared = declaredSize(media.fileLength);
      const limits = runtime.receivedMedia;
      if (declared !== undefined && declared > limits.maxDownloadBytes) {
        throw new MediaTooLargeError(`media of message ${record.key.id}`, limits.maxDownloadBytes, declared);
      }
      const socket = runtime.connection.openSocket();
      const dispatcher = runtime.connection.downloadDispatcher();
      // Baileys derives the decryption keys from the member name; a video note decrypts as a video.
      const message: WAMessage = {
        ...recordToWAMessage(record), message: type === 'ptvMessage' ? proto.Message.fromObject({ videoMessage: content.ptvMessage }) : content,
      };
      const directPath = media.directPath;
      const data = await upstream('the media download', () => runtime.download(message, socket, runtime.logger, dispatcher, limits));
      // The phone uploaded it again (media-retry.ts): later downloads go to the new path.
      const renewed = Object.values(message.message ?? {}).find((m) => m?.directPath) as proto.Message.IImageMessage | undefined;
      if (renewed?.directPath && renewed.directPath !== directPath) {
        // Only spares the phone a second request: the bytes are the answer even when the record cannot be updated.
        // In the event order (a receipt handled meanwhile keeps its status), not waited for: the answer does not wait for the instance's events.
        const { context } = runtime;
        const keep = () => keepRenewedMedia(context.storage.messages, context.instanceId, record.key.id, type, renewed);
        (context.inOrder ? context.inOrder(keep) : keep()).catch((err: unknown) => {
          runtime.logger.warn({ err, messageId: record.key.id }, 'the renewed media path could not be stored: the next download asks the phone again');
        });
      }
      return { data, mimetype: media.mimetype || DEFAULT_MIME[type]!, ...(media.fileName ? { fileName: media.fileName } : {}) };
    },
  };
}

/** A media's declared `fileLength` (a number, a Long or the string of a stored record); undefined when absent or unreadable. */
function declaredSize(value: unknown): number | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  const n = Number(typeof value === 'object' ? String(value) : value);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}
