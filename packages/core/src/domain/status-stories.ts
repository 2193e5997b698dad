import type { InstanceFlags } from './instance.js';
import type { InboundMessage } from '../channel/events.js';

/** The chat status stories are posted to (WhatsApp's status-broadcast JID, as main channels report it). */
export const STATUS_BROADCAST = 'status@broadcast';

/**
 * The one rule for status stories (spec 2.1 `receive_status_message`): a story someone else posted
 * (a message in the `status@broadcast` chat, not from this account) reaches the instance only while
 * the flag is on. The account's own stories always do: they are what it sent. Channels that drop
 * stories before emitting them and the server's event filter both ask this.
 */
export function dropsStatusStory(message: Pick<InboundMessage, 'chatJid' | 'fromMe'>, flags: Pick<InstanceFlags, 'receiveStatusMessage'>): boolean {
  return isOthersStory(message) && !flags.receiveStatusMessage;
}

/** Whether a message is a status story someone else posted. */
export function isOthersStory(message: Pick<InboundMessage, 'chatJid' | 'fromMe'>): boolean {
  return message.chatJid === STATUS_BROADCAST && !message.fromMe;
}
