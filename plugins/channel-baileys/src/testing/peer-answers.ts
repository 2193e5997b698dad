import { randomBytes } from 'node:crypto';
import { aesEncryptGCM, hmacSign, proto } from '@whiskeysockets/baileys';

/** Whose poll or event is answered, by whom: the JIDs and id WhatsApp binds into the key. */
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
 * What a phone does before it sends a poll vote or an event response: derive a key from the
 * message's secret, the message id and both JIDs (HMAC-SHA256 twice, the label names the kind),
 * then AES-256-GCM with the message id and the author as associated data. This is the sender's side
 * of the construction Baileys' `decryptPollVote` / `decryptEventResponse` undo.
 */
function encryptAnswer(label: 'Poll Vote' | 'Event Response', plaintext: Uint8Array, scope: AnswerScope): { encPayload: Buffer; encIv: Buffer } {
  const info = Buffer.concat([
    Buffer.from(scope.messageId), Buffer.from(scope.creatorJid), Buffer.from(scope.authorJid), Buffer.from(label), Buffer.from([1]),
  ]);
  const key = hmacSign(info, hmacSign(Buffer.from(scope.secret), Buffer.alloc(32), 'sha256'), 'sha256');
  const encIv = randomBytes(12);
  const encPayload = aesEncryptGCM(plaintext, key, encIv, Buffer.from(`${scope.messageId}\u0000${scope.authorJid}`));
  return { encPayload, encIv };
}

/** An encrypted vote for the options whose SHA-256 hashes are given (none withdraws the vote). */
export function encryptPollVote(selectedOptions: Uint8Array[], scope: AnswerScope): proto.Message.IPollEncValue {
  return encryptAnswer('Poll Vote', proto.Message.PollVoteMessage.encode({ selectedOptions }).finish(), scope);
}

/** An encrypted event response (RSVP). */
export function encryptEventResponse(response: proto.Message.IEventResponseMessage, scope: AnswerScope): { encPayload: Buffer; encIv: Buffer } {
  return encryptAnswer('Event Response', proto.Message.EventResponseMessage.encode(response).finish(), scope);
}
