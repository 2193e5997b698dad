import type { ChannelEvent, WebhookFormat, WebhookRenderContext } from '@parley/core';
import { envelope, isMainChannel } from './envelope.js';
import { hubSignatureHeaders, metaJson } from './hub-signature.js';
import type { MetaMedia, MetaMessage, MetaValue } from './meta-payload.js';
import { messageMembers } from './messages.mapper.js';
import { statusMembers } from './statuses.mapper.js';

/** `object` of every Cloud API webhook. */
export const CLOUD_API_OBJECT = 'whatsapp_business_account';

/** The Cloud API's body: no Parley members beside Meta's. */
export interface CloudApiWebhookPayload {
  object: typeof CLOUD_API_OBJECT;
  entry: { id: string; changes: { field: 'messages'; value: MetaValue }[] }[];
}

const MEDIA_TYPES = new Set(['image', 'audio', 'video', 'document', 'sticker']);

/**
 * A message as the Cloud API sends it: without the spec 6.3 members Meta has no counterpart for, and
 * its media named by the id `GET /{version}/{media-id}` resolves (the message id; the Cloud API gives
 * no download URL in webhooks, the receiver asks for it with that id).
 */
function cloudMessage(message: MetaMessage): MetaMessage {
  const { from_me: _fromMe, chat_type: _chatType, ...rest } = message;
  if (!MEDIA_TYPES.has(rest.type)) return rest as MetaMessage;
  const { url: _url, ...media } = (rest as unknown as Record<string, MetaMedia>)[rest.type]!;
  return { ...rest, [rest.type]: { ...media, id: message.id } } as MetaMessage;
}

/**
 * The `cloud-api` format (docs/cloud-api.md): exactly what the WhatsApp Cloud API sends a receiver,
 * for a bot or CRM ported from it. Only the main channel's incoming messages and the statuses of sent
 * ones, under `field: "messages"`, with `object` `whatsapp_business_account` and `messaging_product`
 * `whatsapp`; the instance's own messages (sent from the phone or through the API), presence,
 * connection, QR codes, calls, groups and health are not delivered, as the Cloud API has no such
 * webhooks. Bodies are escaped and signed as Meta's (`X-Hub-Signature-256`).
 */
export class CloudApiFormat implements WebhookFormat {
  readonly name = 'cloud-api';

  render(event: ChannelEvent, context: WebhookRenderContext): CloudApiWebhookPayload | null {
    if (!isMainChannel(event, context)) return null;
    let members: Omit<MetaValue, 'messaging_product' | 'metadata'>;
    if (event.type === 'message') {
      if (event.message.fromMe) return null;
      const rendered = messageMembers(event, context);
      members = { ...rendered, ...(rendered.messages ? { messages: rendered.messages.map(cloudMessage) } : {}) };
    } else if (event.type === 'message.status') {
      members = statusMembers(event, context);
    } else {
      return null;
    }
    const meta = envelope(event, context, 'messages', members);
    const [entry] = meta.entry;
    const [change] = entry!.changes;
    return {
      object: CLOUD_API_OBJECT,
      entry: [{ id: entry!.id, changes: [{ field: 'messages', value: { ...change!.value, messaging_product: 'whatsapp' } as MetaValue }] }],
    };
  }

  signatureHeaders(body: string, secret: string): Record<string, string> {
    return hubSignatureHeaders(body, secret);
  }

  serialize(body: unknown): string {
    return metaJson(body);
  }
}
