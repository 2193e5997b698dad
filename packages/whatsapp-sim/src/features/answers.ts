import { createHash, randomBytes } from 'node:crypto';
import { aesEncryptGCM, hmacSign, proto } from '@whiskeysockets/baileys';
import { contentOf, type ReceivedMessage } from '../network/phone.js';
import { SimError } from '../network/errors.js';
import type { Chat, RsvpInput, VoteInput } from './message-kinds.js';

/** The kinds a phone answers a received poll or event with. */
export const ANSWER_KINDS = ['vote', 'rsvp'] as const;

const RESPONSES = {
  going: proto.Message.EventResponseMessage.EventResponseType.GOING,
  not_going: proto.Message.EventResponseMessage.EventResponseType.NOT_GOING,
  maybe: proto.Message.EventResponseMessage.EventResponseType.MAYBE,
};
/** Most guests an RSVP brings (WhatsApp's event sheet offers a small number; far above it here). */
const MAX_GUESTS = 100;

const invalid = (message: string, field: string): SimError => new SimError(400, 'invalid_message', message, { field });

/** Whose poll or event is answered, by whom: what WhatsApp binds into the key of the answer. */
export interface AnswerScope {
  /** `messageSecret` of the poll or event message. */
  secret: Uint8Array;
  /** Id of the poll or event message. */
  messageId: string;
  creatorJid: string;
  /** The voter or responder. */
  authorJid: string;
}

/**
 * What a WhatsApp phone does to answer a poll or an event: the key is derived from the question's
 * `messageSecret`, its id and both JIDs (HMAC-SHA256 of the secret over 32 zero bytes, then of
 * `id ‖ creator ‖ author ‖ label ‖ 0x01`), and the answer sealed with AES-256-GCM whose associated data
 * is `id \0 author`. This is the sending side of Baileys' `decryptPollVote` / `decryptEventResponse`
 * (Utils/process-message), which the receiving client runs unmodified.
 */
export function sealAnswer(label: 'Poll Vote' | 'Event Response', plaintext: Uint8Array, scope: AnswerScope): { encPayload: Buffer; encIv: Buffer } {
  const { messageId: id, creatorJid: creator, authorJid: author } = scope;
  const info = Buffer.concat([Buffer.from(id), Buffer.from(creator), Buffer.from(author), Buffer.from(label), Buffer.from([1])]);
  const key = hmacSign(info, hmacSign(Buffer.from(scope.secret), Buffer.alloc(32), 'sha256'), 'sha256');
  const encIv = randomBytes(12);
  return { encPayload: aesEncryptGCM(plaintext, key, encIv, Buffer.from(`${id}\u0000${author}`)), encIv };
}

/**
 * The question being answered: a message the phone received in this chat (from the peer of a 1:1 chat,
 * from any member in a group) whose content has `member`; 404 `message_not_found` otherwise. Answers it
 * with its creator's JID, its key as the answering phone names it, and its secret.
 */
function question(chat: Chat, received: readonly ReceivedMessage[], id: unknown, member: (content: Record<string, unknown>) => unknown, what: string) {
  if (typeof id !== 'string' || id.length === 0 || id.length > 128) throw invalid('messageId must be a non-empty string of at most 128 characters', 'messageId');
  const found = received.find((m) => m.id === id && (chat.group ? m.group === chat.jid : !m.group && m.fromNumber === chat.peer));
  const content = found && contentOf(found.message);
  const body = content && member(content);
  if (!found || !body) throw new SimError(404, 'message_not_found', `the phone received no ${what} ${id} in ${chat.jid}`, { messageId: id });
  // Beside the content, or beside its wrapper (Baileys' normalizeMessageContent looks in both).
  const secret = [content, found.message].map((m) => (m.messageContextInfo as { messageSecret?: string } | undefined)?.messageSecret).find(Boolean);
  if (!secret) throw new SimError(409, 'no_message_secret', `the ${what} ${id} carries no messageSecret to answer it with`, { messageId: id });
  const creator = `${found.fromNumber}@s.whatsapp.net`;
  const key: proto.IMessageKey = { remoteJid: chat.jid, fromMe: false, id, ...(chat.group ? { participant: creator } : {}) };
  return { body: body as Record<string, unknown>, creator, key, secret: Buffer.from(secret, 'base64') };
}

const POLL_MEMBERS = ['pollCreationMessage', 'pollCreationMessageV2', 'pollCreationMessageV3'];

/**
 * The `pollUpdateMessage` of a vote, or the `encEventResponseMessage` of an RSVP, as a phone sends it to
 * the chat of the question (`received`: what the answering phone got). A vote names options of the poll
 * (400 otherwise, or when they exceed its `selectableOptionsCount`) and carries their SHA-256 hashes.
 */
export function buildAnswer(chat: Chat, input: VoteInput | RsvpInput, received: readonly ReceivedMessage[]): { message: proto.IMessage; text: string } {
  if (input.kind === 'vote') {
    const poll = question(chat, received, input.messageId, (c) => POLL_MEMBERS.map((m) => c[m]).find(Boolean), 'poll');
    const names = ((poll.body.options ?? []) as Array<{ optionName?: string }>).map((o) => o.optionName ?? '');
    const chosen = input.options;
    if (!Array.isArray(chosen) || chosen.some((o) => typeof o !== 'string' || !names.includes(o)) || new Set(chosen).size !== chosen.length) {
      throw invalid(`options must be distinct options of the poll: ${names.join(', ')}`, 'options');
    }
    const limit = Number(poll.body.selectableOptionsCount ?? 0);
    if (limit > 0 && chosen.length > limit) throw invalid(`the poll takes at most ${limit} option(s)`, 'options');
    const selectedOptions = chosen.map((name) => createHash('sha256').update(name).digest());
    const vote = sealAnswer('Poll Vote', proto.Message.PollVoteMessage.encode({ selectedOptions }).finish(), { secret: poll.secret, messageId: input.messageId, creatorJid: poll.creator, authorJid: chat.fromJid });
    return { message: { pollUpdateMessage: { pollCreationMessageKey: poll.key, vote, senderTimestampMs: Date.now() } }, text: chosen.join(', ') };
  }
  const event = question(chat, received, input.messageId, (c) => c.eventMessage, 'event');
  if (!Object.hasOwn(RESPONSES, input.response)) throw invalid(`response must be one of ${Object.keys(RESPONSES).join(', ')}`, 'response');
  const guests = input.extraGuests ?? 0;
  if (!Number.isInteger(guests) || guests < 0 || guests > MAX_GUESTS) throw invalid(`extraGuests must be an integer from 0 to ${MAX_GUESTS}`, 'extraGuests');
  const plain = proto.Message.EventResponseMessage.encode({ response: RESPONSES[input.response], timestampMs: Date.now(), extraGuestCount: guests }).finish();
  const sealed = sealAnswer('Event Response', plain, { secret: event.secret, messageId: input.messageId, creatorJid: event.creator, authorJid: chat.fromJid });
  return { message: { encEventResponseMessage: { eventCreationMessageKey: event.key, ...sealed } }, text: input.response };
}
