import { type ChannelEvent, type EventError, type WebhookRenderContext } from '@parley/core';
import { jidUser } from '@parley/whatsapp-proto';
import type { MetaError, MetaField, MetaValue, MetaWebhookPayload } from './meta-payload.js';

/** Prefix of the main channel's `entry[].id`, followed by the base64url of the public instance id. */
export const MAIN_ENTRY_PREFIX = 'wa_';

/**
 * True for the instance's main channel (the channel of its main driver, from the drivers registered
 * in the server), which has no official interface here: `display_phone_number`, `chat_type`, `conversation`…
 */
export function isMainChannel(event: ChannelEvent, context: WebhookRenderContext): boolean {
  return event.provider === context.mainChannel;
}

/**
 * `entry[].id`: on the main channel a prefixed encoding of the public instance id (so it cannot be
 * mistaken for a Meta business account id); on a social channel the linked account id (Instagram
 * account id or Page id), as Meta's own webhooks name it.
 */
function entryId(event: ChannelEvent, context: WebhookRenderContext): string {
  if (isMainChannel(event, context)) return MAIN_ENTRY_PREFIX + Buffer.from(event.instance, 'utf8').toString('base64url');
  return context.instance.links[event.provider]?.accountId ?? '';
}

/** Wraps the members of one change in the spec 6.2 envelope. */
export function envelope(event: ChannelEvent, context: WebhookRenderContext, field: MetaField, members: Omit<MetaValue, 'messaging_product' | 'metadata'>): MetaWebhookPayload {
  const main = isMainChannel(event, context);
  const user = context.instance.user;
  const metadata = main
    ? { display_phone_number: user ? jidUser(user.id) : '', phone_number_id: event.instance }
    : { phone_number_id: event.instance };
  return {
    object: context.serviceTag,
    provider: event.provider,
    instance: event.instance,
    official: !main,
    entry: [{ id: entryId(event, context), changes: [{ field, value: { messaging_product: event.provider, metadata, ...members } }] }],
  };
}

/** An `errors[]` list of one error (spec 7). */
export function errorList(error: EventError): MetaError[] {
  return [{ code: error.code, title: error.title, message: error.message, error_data: { details: error.details } }];
}
