import { type ChannelEventOf, type WebhookRenderContext } from '@parley/core';
import { isGroupJid, jidUser } from '@parley/whatsapp-proto';
import { errorList, isMainChannel } from './envelope.js';
import type { MetaStatus, MetaValue } from './meta-payload.js';


/**
 * `statuses` of a delivery status or read receipt (spec 6.3). The main channel adds `conversation` and
 * `pricing` (always null: there is no per-conversation billing) and marks group receipts with
 * `recipient_type` and the member's number; social channels carry only id, status, timestamp and
 * recipient, and omit `id` when the channel does not name the message.
 */
export function statusMembers(event: ChannelEventOf<'message.status'>, context: WebhookRenderContext): Pick<MetaValue, 'statuses'> {
  const status: MetaStatus = {
    ...(event.messageId === '' ? {} : { id: event.messageId }),
    status: event.status,
    timestamp: String(event.timestamp),
    recipient_id: event.recipientId,
  };
  if (isMainChannel(event, context)) {
    if (isGroupJid(event.chatJid)) {
      status.recipient_type = 'group';
      if (event.participant !== undefined) status.recipient_participant_id = jidUser(event.participant);
    }
    status.conversation = null;
    status.pricing = null;
  }
  if (event.error) status.errors = errorList(event.error);
  return { statuses: [status] };
}
