import { createHash } from 'node:crypto';
import type { EventResponseContent, InboundMessage, PollVoteContent } from '@parley/core';
import {
  decryptEventResponse, decryptPollVote, isLidUser, jidNormalizedUser, normalizeMessageContent, proto, type WAMessageKey,
} from '@whiskeysockets/baileys';
import { userPart } from '../util/jids.js';
import { resolvePn, type InboundEnv } from './inbound-env.js';

/** A decrypted vote or RSVP, and the message it answers (Meta's interactive replies carry it as `context`). */
export interface DecryptedAnswer {
  content: PollVoteContent | EventResponseContent;
  context: NonNullable<InboundMessage['context']>;
}

const RESPONSES: Partial<Record<number, EventResponseContent['response']>> = {
  [proto.Message.EventResponseMessage.EventResponseType.GOING]: 'going',
  [proto.Message.EventResponseMessage.EventResponseType.NOT_GOING]: 'not_going',
  [proto.Message.EventResponseMessage.EventResponseType.MAYBE]: 'maybe',
};

/** The poll's or event's secret: set beside the content on send (Utils/messages.js), or inside a wrapper. */
function messageSecret(message: proto.IMessage): Uint8Array | undefined {
  return message.messageContextInfo?.messageSecret ?? normalizeMessageContent(message)?.messageContextInfo?.messageSecret ?? undefined;
}

/**
 * JIDs a message's author may have been named by when the key was derived, most likely first. The key
 * binds the author's JID; Baileys uses `getKeyAuthor` (the alternate address first) and, for events,
 * turns a LID into its phone number. Chats move between phone-number and LID addressing, so each
 * known form is tried: a wrong one fails the AES-GCM tag and nothing is accepted by mistake.
 */
async function authorJids(key: WAMessageKey, env: InboundEnv): Promise<string[]> {
  const found: (string | null | undefined)[] = [];
  if (key.fromMe) {
    found.push(env.ownJid, env.ownLid);
  } else {
    const primary = key.participant || key.remoteJid;
    found.push(key.participant ? key.participantAlt : key.remoteJidAlt, primary);
    if (isLidUser(primary ?? undefined)) found.push(await env.pnForLid(jidNormalizedUser(primary!)));
  }
  return [...new Set(found.filter((jid): jid is string => !!jid).map(jidNormalizedUser))];
}

/** The first decryption that passes the AES-GCM tag over every creator/author JID pair, or undefined. */
async function decryptAs<T>(creationKey: WAMessageKey, key: WAMessageKey, env: InboundEnv, decrypt: (creator: string, author: string) => T): Promise<T | undefined> {
  const creators = await authorJids(creationKey, env);
  const authors = await authorJids(key, env);
  for (const creator of creators) {
    for (const author of authors) {
      try {
        return decrypt(creator, author);
      } catch {
        // Wrong JID pair (or a tampered payload): the tag does not verify.
      }
    }
  }
  return undefined;
}

/** The answered message as a reply context: its id and its creator's number. */
async function answered(creationKey: WAMessageKey, env: InboundEnv, id: string): Promise<DecryptedAnswer['context']> {
  const creator = creationKey.fromMe ? env.ownJid : await resolvePn(env, creationKey.participant || creationKey.remoteJid, undefined);
  return { id, ...(creator ? { from: userPart(creator) } : {}) };
}

function pollOptions(poll: proto.IMessage): string[] {
  const content = normalizeMessageContent(poll);
  const creation = content?.pollCreationMessage ?? content?.pollCreationMessageV2 ?? content?.pollCreationMessageV3;
  return (creation?.options ?? []).map((option) => option.optionName ?? '');
}

/**
 * Decrypts a poll vote (`pollUpdateMessage`) with the stored poll's `messageSecret`, as WhatsApp
 * derives the key (Baileys' `decryptPollVote`); options are matched to the poll's by SHA-256 of their
 * names, as Baileys' `getAggregateVotesInPollMessage` does. Baileys 7.0.0-rc14 no longer decrypts
 * votes itself (that part of `processMessage` is commented out), so the adapter does.
 * Undefined when the poll is not stored, has no secret, or the vote does not decrypt.
 */
export async function pollVote(update: proto.Message.IPollUpdateMessage, key: WAMessageKey, env: InboundEnv): Promise<DecryptedAnswer | undefined> {
  const creationKey = update.pollCreationMessageKey;
  const vote = update.vote;
  if (!creationKey?.id || !vote?.encPayload || !vote.encIv) return undefined;
  const poll = await env.storedMessage(creationKey);
  const secret = poll && messageSecret(poll);
  if (!poll || !secret) return undefined;
  const pollMsgId = creationKey.id;
  const decrypted = await decryptAs(creationKey, key, env, (pollCreatorJid, voterJid) =>
    decryptPollVote(vote, { pollEncKey: secret, pollCreatorJid, pollMsgId, voterJid }));
  if (!decrypted) return undefined;
  const names = new Map(pollOptions(poll).map((name) => [createHash('sha256').update(name).digest('hex'), name]));
  const options = decrypted.selectedOptions.map((selected) => {
    const hash = Buffer.from(selected).toString('hex');
    const name = names.get(hash);
    return name === undefined ? { hash } : { hash, name };
  });
  return { content: { type: 'poll_vote', pollId: pollMsgId, options }, context: await answered(creationKey, env, pollMsgId) };
}

/**
 * Decrypts an event response (`encEventResponseMessage`) with the stored event's `messageSecret`, as
 * Baileys' `processMessage` does with `decryptEventResponse` (its own result, a `messages.update`
 * with `eventResponses`, carries no record and is not mapped again). Undefined when it cannot.
 */
export async function eventResponse(enc: proto.Message.IEncEventResponseMessage, key: WAMessageKey, env: InboundEnv): Promise<DecryptedAnswer | undefined> {
  const creationKey = enc.eventCreationMessageKey;
  if (!creationKey?.id || !enc.encPayload || !enc.encIv) return undefined;
  const event = await env.storedMessage(creationKey);
  const secret = event && messageSecret(event);
  if (!secret) return undefined;
  const eventMsgId = creationKey.id;
  const decrypted = await decryptAs(creationKey, key, env, (eventCreatorJid, responderJid) =>
    decryptEventResponse({ encPayload: enc.encPayload!, encIv: enc.encIv! }, { eventEncKey: secret, eventCreatorJid, eventMsgId, responderJid }));
  const response = decrypted?.response === null || decrypted?.response === undefined ? undefined : RESPONSES[decrypted.response];
  if (!response) return undefined;
  const guests = decrypted!.extraGuestCount;
  return {
    content: { type: 'event_response', eventId: eventMsgId, response, ...(typeof guests === 'number' && guests > 0 ? { extraGuests: guests } : {}) },
    context: await answered(creationKey, env, eventMsgId),
  };
}
