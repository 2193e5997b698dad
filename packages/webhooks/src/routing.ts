import type { ChannelEvent, WebhookSettings } from '@parley/core';

/**
 * The URL an event goes to (spec 2.2 / 6.1): the type's own URL, or `webhookMessage` when that is
 * empty. Messages sent by the instance use `webhookMessageFromMe`; statuses, presence, calls, health
 * and the internal kinds use `webhookMessage`. Empty when nothing is configured.
 */
export function routeUrl(event: ChannelEvent, settings: WebhookSettings): string {
  const own = (() => {
    switch (event.type) {
      case 'message':
        return event.message.fromMe ? settings.webhookMessageFromMe : '';
      case 'group.participants':
      case 'group.update':
        return settings.webhookGroup;
      case 'connection':
        return settings.webhookConnection;
      case 'qrcode':
        return settings.webhookQrCode;
      case 'history':
        return settings.webhookHistory;
      default:
        return '';
    }
  })();
  return own.trim() || settings.webhookMessage.trim();
}

/** Format names selected by `webhookFormat`: `both` means native and meta, each delivered separately. */
export function formatNames(webhookFormat: string): string[] {
  return webhookFormat === 'both' ? ['native', 'meta'] : [webhookFormat];
}
