import type { ChannelEvent, WebhookFormat, WebhookRenderContext } from '@parley/core';
import { envelope } from './envelope.js';
import { hubSignatureHeaders, metaJson } from './hub-signature.js';
import { callMembers, connectionMembers, groupMembers, healthMembers, presenceMembers, qrcodeMembers } from './instance-events.mapper.js';
import type { MetaWebhookPayload } from './meta-payload.js';
import { messageMembers } from './messages.mapper.js';
import { statusMembers } from './statuses.mapper.js';

/**
 * The `meta` format (spec 6.2): an envelope shaped like Meta's Cloud API webhooks, the same for all
 * three channels. Kinds the spec gives no field (history sync, chat and contact bookkeeping, deletions)
 * render null: receivers of this format get only spec 6.3 events.
 */
export class MetaFormat implements WebhookFormat {
  readonly name = 'meta';

  render(event: ChannelEvent, context: WebhookRenderContext): MetaWebhookPayload | null {
    switch (event.type) {
      case 'message':
        return envelope(event, context, 'messages', messageMembers(event, context));
      case 'message.status':
        return envelope(event, context, 'messages', statusMembers(event, context));
      case 'presence':
        return envelope(event, context, 'presence', presenceMembers(event));
      case 'connection':
        return envelope(event, context, 'connection', connectionMembers(event));
      case 'qrcode':
        return envelope(event, context, 'qrcode', qrcodeMembers(event));
      case 'call':
        return envelope(event, context, 'call', callMembers(event));
      case 'group.participants':
      case 'group.update':
        return envelope(event, context, 'groups', groupMembers(event));
      case 'health':
        return envelope(event, context, 'health', healthMembers(event));
      case 'history':
      case 'chats.upsert':
      case 'chats.delete':
      case 'contacts.upsert':
      case 'contacts.delete':
      case 'message.delete':
        return null;
    }
  }

  signatureHeaders(body: string, secret: string): Record<string, string> {
    return hubSignatureHeaders(body, secret);
  }

  serialize(body: unknown): string {
    return metaJson(body);
  }
}
