import type { Network } from '../network/network.js';
import { SimError } from '../network/errors.js';
import { isMediaKind, type Media, type MediaInput } from './media.js';
import type { Messaging, SentMessage } from './messaging.js';
import type { GroupMessages } from './group-messages.js';
import { buildMessage, MESSAGE_KINDS, type Chat, type PhoneMessageInput, type RsvpInput, type VoteInput } from './message-kinds.js';
import { ANSWER_KINDS, buildAnswer } from './answers.js';

/** Where a phone sends: the number `to` (1:1) or the group `group` (its JID or id); exactly one. */
export interface MessageTarget {
  to?: string;
  group?: string;
}

/**
 * A phone sends a message of any kind ({@link PhoneMessageInput}) to a number or into a group, the way
 * its texts go: 1:1 through Messaging (Signal sessions per device), groups through GroupMessages (sender
 * keys); media is uploaded encrypted to the media host first.
 */
export class PhoneMessages {
  constructor(
    private readonly network: Network, private readonly media: Media, private readonly messaging: Messaging, private readonly groupMessages: GroupMessages,
  ) {}

  async send(fromNumber: string, target: MessageTarget, input: PhoneMessageInput): Promise<SentMessage> {
    const from = this.network.account(fromNumber);
    if (!target || typeof target !== 'object' || (target.to === undefined) === (target.group === undefined)) {
      throw new SimError(400, 'invalid_message', 'give exactly one of to (a number) and group (a group JID)', { field: 'to' });
    }
    if (!input || typeof input !== 'object' || !(MESSAGE_KINDS as readonly string[]).includes(input.kind)) {
      throw new SimError(400, 'invalid_message', `kind must be one of ${MESSAGE_KINDS.join(', ')}`, { field: 'kind' });
    }
    const fromJid = `${from.number}@s.whatsapp.net`;
    let chat: Chat;
    if (target.group !== undefined) {
      const group = this.groupMessages.sendable(from.number, String(target.group));
      chat = { fromJid, jid: group.jid, group: true, userJid: (number) => this.groupMessages.nameOf(group, number) };
    } else {
      const to = this.network.account(String(target.to));
      chat = { fromJid, jid: `${to.number}@s.whatsapp.net`, group: false, peer: to.number };
    }
    const { message, text } = isMediaKind(input.kind)
      ? { message: await this.media.upload(input as MediaInput), text: (input as MediaInput).caption ?? (input as MediaInput).fileName ?? '' }
      : (ANSWER_KINDS as readonly string[]).includes(input.kind)
        ? buildAnswer(chat, input as VoteInput | RsvpInput, from.phone.received)
        : buildMessage(chat, input as Exclude<PhoneMessageInput, MediaInput | VoteInput | RsvpInput>, (id) => this.messaging.sentBy(from).some((m) => m.id === id && m.to === chat.jid));
    const sent = await (chat.group ? this.groupMessages.phoneSends(from.number, chat.jid, message, text) : this.messaging.phoneSends(from.number, chat.peer!, message, text));
    if (isMediaKind(input.kind)) this.media.keep(from, sent.id, message, (input as MediaInput).data);
    return sent;
  }
}
