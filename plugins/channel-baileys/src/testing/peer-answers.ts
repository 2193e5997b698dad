import { proto } from '@whiskeysockets/baileys';
import { sealAnswer, type AnswerScope } from '@parley/whatsapp-sim';

export type { AnswerScope };

/**
 * A peer's encrypted vote for the options whose SHA-256 hashes are given (none withdraws the vote), sealed
 * as a phone seals it (`sealAnswer` of `@parley/whatsapp-sim`, whose phones vote the same way).
 */
export function encryptPollVote(selectedOptions: Uint8Array[], scope: AnswerScope): proto.Message.IPollEncValue {
  return sealAnswer('Poll Vote', proto.Message.PollVoteMessage.encode({ selectedOptions }).finish(), scope);
}

/** A peer's encrypted event response (RSVP). */
export function encryptEventResponse(response: proto.Message.IEventResponseMessage, scope: AnswerScope): { encPayload: Buffer; encIv: Buffer } {
  return sealAnswer('Event Response', proto.Message.EventResponseMessage.encode(response).finish(), scope);
}
