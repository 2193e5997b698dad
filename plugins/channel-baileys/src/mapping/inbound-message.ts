import type { InboundContent, InboundMessage, MessageRecord, Referral } from '@parley/core';
import {
  getContentType, isJidBroadcast, isJidGroup, isJidNewsletter, isJidStatusBroadcast, normalizeMessageContent, proto,
  type WAMessage,
} from '@whiskeysockets/baileys';
import { isLidJid, normalizeJid, userPart } from '../util/jids.js';
import { mentionRenames, renameMentions } from '../util/mention-text.js';
import { inboundContent, mentionsOf } from '@parley/whatsapp-proto';
import { pnsOf, resolvePn, type InboundEnv } from './inbound-env.js';
import { eventResponse, pollVote, type DecryptedAnswer } from './inbound-votes.js';
import { contextInfoOf, keepQuote } from './edit-quote.js';
import { messageJson, restStatus, seconds } from './record.js';

/** Outcome of mapping one upserted message. */
export type InboundResult =
  | { kind: 'message'; message: InboundMessage }
  | { kind: 'delete'; chatJid: string; messageId: string }
  | { kind: 'ignore'; why: string };

const AD_MEDIA: Record<number, string> = {
  [proto.ContextInfo.ExternalAdReplyInfo.MediaType.IMAGE]: 'image',
  [proto.ContextInfo.ExternalAdReplyInfo.MediaType.VIDEO]: 'video',
};

/**
 * Why a message came without content Parley can read: `view_once` (WhatsApp gives a view-once
 * message's media to the phone only; a linked device gets `<unavailable type="view_once">`, which
 * Baileys marks `key.isViewOnce`, Utils/decode-wa-message.js) or `ciphertext` (it did not decrypt:
 * Baileys' CIPHERTEXT stub, followed by a retry request the sender may answer with a resend).
 */
export type Unreadable = 'view_once' | 'ciphertext';

function unreadableOf(msg: WAMessage): Unreadable | undefined {
  if (msg.message) return undefined;
  if (msg.key?.isViewOnce) return 'view_once';
  return msg.messageStubType === proto.WebMessageInfo.StubType.CIPHERTEXT ? 'ciphertext' : undefined;
}

function lidOf(jid: string | null | undefined, alt: string | null | undefined): string | undefined {
  if (isLidJid(jid)) return normalizeJid(jid);
  if (isLidJid(alt)) return normalizeJid(alt);
  return undefined;
}

/**
 * Maps a message of `messages.upsert` (or of a history sync) to a normalized inbound message. Edits
 * become the edited content with `edit.originalMessageId` (the record keeps the original id and, when
 * the original is stored, its timestamp, so the stored message shows the new text in its place);
 * revocations become deletions; stubs, newsletters and broadcast-list copies are ignored.
 */
export async function mapInboundMessage(msg: WAMessage, env: InboundEnv): Promise<InboundResult> {
  const key = msg.key;
  const remote = key?.remoteJid;
  if (!key?.id || !remote) return { kind: 'ignore', why: 'message without key' };
  if (isJidNewsletter(remote) || (isJidBroadcast(remote) && !isJidStatusBroadcast(remote))) {
    return { kind: 'ignore', why: 'newsletter or broadcast list' };
  }
  const unreadable = unreadableOf(msg);
  let content = normalizeMessageContent(msg.message) ?? (unreadable ? {} : undefined);
  let type = getContentType(content ?? undefined);
  if (!content || (!type && !unreadable)) return { kind: 'ignore', why: 'no content (protocol stub)' };
  // An album announces the images and videos that follow as messages of their own.
  if (type === 'albumMessage') return { kind: 'ignore', why: 'album parent' };

  const group = isJidGroup(remote) === true;
  const multiSender = group || isJidStatusBroadcast(remote) === true;
  const chatJid = group || multiSender ? remote : ((await resolvePn(env, remote, key.remoteJidAlt)) ?? remote);

  let edit: { originalMessageId: string } | undefined;
  let original: MessageRecord | undefined;
  if (type === 'protocolMessage') {
    const protocol = content.protocolMessage!;
    const targetId = protocol.key?.id;
    if (protocol.type === proto.Message.ProtocolMessage.Type.REVOKE && targetId) return { kind: 'delete', chatJid, messageId: targetId };
    if (protocol.type !== proto.Message.ProtocolMessage.Type.MESSAGE_EDIT || !protocol.editedMessage || !targetId) {
      return { kind: 'ignore', why: `protocol message ${String(protocol.type)}` };
    }
    const edited = normalizeMessageContent(protocol.editedMessage);
    if (!edited || !getContentType(edited)) return { kind: 'ignore', why: 'empty edit' };
    original = await env.storedRecord(targetId);
    // An edited reply still quotes what it quoted, though the edit carries the new text only.
    content = keepQuote(edited, original);
    type = getContentType(content);
    edit = { originalMessageId: targetId };
  }

  const fromMe = key.fromMe === true;
  let senderJid: string;
  let senderLid: string | undefined;
  if (fromMe) {
    senderJid = env.ownJid;
    senderLid = env.ownLid;
  } else if (multiSender) {
    senderJid = (await resolvePn(env, key.participant, key.participantAlt)) ?? remote;
    senderLid = lidOf(key.participant, key.participantAlt);
  } else {
    senderJid = chatJid;
    senderLid = lidOf(remote, key.remoteJidAlt);
  }

  const recordId = edit?.originalMessageId ?? key.id;
  const timestamp = seconds(msg.messageTimestamp, env.now());
  // An edit changes what a message says, not when it was sent: the record keeps the original's time (and so its place in the chat).
  const sentAt = original?.messageTimestamp;
  const contextInfo = contextInfoOf(content);
  const answer = await decryptAnswer(content, key, env);
  const context = answer?.context ?? (await replyContext(env, contextInfo));
  const referral = adReferral(contextInfo);
  // The secret of a poll or event travels beside the content, outside wrappers that normalizing drops;
  // an edit's own context info belongs to the edit, not to the message it replaces.
  const outer = msg.message?.messageContextInfo;
  const stored = edit || content.messageContextInfo || !outer ? content : { ...content, messageContextInfo: outer };
  const record: MessageRecord = {
    key: { remoteJid: chatJid, fromMe, id: recordId, ...(multiSender ? { participant: senderJid } : {}) },
    message: messageJson(stored),
    messageTimestamp: sentAt ?? String(timestamp),
    status: restStatus(msg.status) ?? (fromMe ? 'SERVER_ACK' : 'DELIVERY_ACK'),
    provider: 'whatsapp',
    ...(msg.pushName ? { pushName: msg.pushName } : {}),
  };
  // A LID-addressed group's members mention each other by LID: the event names them by number where known, in
  // `mentions` and as `@<number>` in the text (the record keeps WhatsApp's JIDs and text).
  const mentioned = mentionsOf(record.message);
  const mentions = await pnsOf(env, mentioned);
  const renames = mentionRenames(mentioned ?? [], mentions ?? []);
  const message: InboundMessage = {
    id: key.id,
    chatJid,
    from: userPart(senderJid),
    ...(senderLid ? { fromUserId: senderLid } : {}),
    fromMe,
    timestamp,
    chatType: group ? 'group' : 'individual',
    ...(group ? { groupId: remote } : {}),
    ...(msg.pushName ? { pushName: msg.pushName } : {}),
    content: unreadable || !type ? { type: 'unsupported', typeName: unreadable ?? 'unknown' } : answer?.content ?? shownByNumber(inboundContent(content, type, recordId), renames),
    ...(context ? { context } : {}),
    ...(mentions ? { mentions } : {}),
    ...(referral ? { referral } : {}),
    ...(edit ? { edit } : {}),
    record,
  };
  return { kind: 'message', message };
}

/** The text or caption of `content` with the mentions `renames` names (`@<LID user>` → `@<number>`) by number. */
function shownByNumber(content: InboundContent, renames: ReadonlyMap<string, string>): InboundContent {
  if (renames.size === 0) return content;
  if (content.type === 'text') return { ...content, body: renameMentions(content.body, renames) };
  if ('media' in content && content.media.caption) return { ...content, media: { ...content.media, caption: renameMentions(content.media.caption, renames) } };
  return content;
}

/** A poll vote or event response, decrypted; undefined for other content (and for answers that do not decrypt: they stay unsupported). */
function decryptAnswer(content: proto.IMessage, key: WAMessage['key'], env: InboundEnv): Promise<DecryptedAnswer | undefined> {
  if (content.pollUpdateMessage) return pollVote(content.pollUpdateMessage, key, env);
  if (content.encEventResponseMessage) return eventResponse(content.encEventResponseMessage, key, env);
  return Promise.resolve(undefined);
}

async function replyContext(env: InboundEnv, info: proto.IContextInfo | undefined): Promise<InboundMessage['context']> {
  if (!info?.stanzaId) return undefined;
  const participant = await resolvePn(env, info.participant, undefined);
  return { id: info.stanzaId, ...(participant ? { from: userPart(participant) } : {}) };
}

function adReferral(info: proto.IContextInfo | undefined): Referral | undefined {
  const ad = info?.externalAdReply;
  if (!ad || !(ad.sourceId || ad.ctwaClid || ad.sourceType)) return undefined;
  const referral: Referral = {};
  if (ad.sourceUrl) referral.sourceUrl = ad.sourceUrl;
  if (ad.sourceId) referral.sourceId = ad.sourceId;
  if (ad.sourceType) referral.sourceType = ad.sourceType;
  if (ad.title) referral.headline = ad.title;
  if (ad.body) referral.body = ad.body;
  const mediaType = ad.mediaType === null || ad.mediaType === undefined ? undefined : AD_MEDIA[ad.mediaType];
  if (mediaType) referral.mediaType = mediaType;
  if (ad.thumbnailUrl) referral.thumbnailUrl = ad.thumbnailUrl;
  if (ad.ctwaClid) referral.ctwaClid = ad.ctwaClid;
  return referral;
}
