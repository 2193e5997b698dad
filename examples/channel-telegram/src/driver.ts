import { DEFAULT_MEDIA_LIMITS, type ChannelDriver, type Clock, type MediaLimits } from '@parley/core';
import { TelegramAdapter } from './adapter.js';
import { BotApi } from './bot-api.js';
import { linkBot } from './link.js';
import { webhookRoute } from './webhook-route.js';

/** Options of {@link createTelegramDriver}. */
export interface TelegramDriverOptions {
  /** The Bot API base URL (a local mock in tests). */
  apiBaseUrl: string;
  timeoutMs: number;
  /**
   * The server's public URL, read when a bot is linked: the webhook URL given to `setWebhook` is built
   * from it. A function because a server on port 0 knows its URL only once it listens.
   */
  publicUrl: () => string;
  clock?: Clock;
  /** The host's limits of received media (`host.media`): downloads of received files keep to them. Default: core's `DEFAULT_MEDIA_LIMITS`. */
  media?: MediaLimits;
}

/**
 * The `telegram` driver. Social: a bot is linked beside an instance's main channel with its token
 * (`POST /{key}/instance/links/telegram`), the way Instagram and Messenger are — a bot has no session,
 * QR code or pairing to be the instance's connection.
 */
export function createTelegramDriver(options: TelegramDriverOptions): ChannelDriver {
  const api = new BotApi(options.apiBaseUrl.replace(/\/+$/, ''), options.timeoutMs);
  const now = () => options.clock?.now() ?? Date.now();
  return {
    name: 'telegram',
    channel: 'telegram',
    role: 'social',
    addressing: { description: 'The Telegram chat id (an integer, negative for groups) or @channelusername.', phoneNumbers: false },
    create: (context) => new TelegramAdapter(context, api, options.media ?? DEFAULT_MEDIA_LIMITS),
    link: (input) => linkBot(api, options.publicUrl(), input, now()),
    routes: [webhookRoute()],
  };
}
