import { definePlugin } from '@parley/core';
import { createTelegramDriver } from './driver.js';

/** Options of the plugin entry. */
export interface TelegramPluginOptions {
  apiBaseUrl: string;
  timeoutMs: number;
}

/** Registers the `telegram` channel driver (Telegram Bot API). */
export default definePlugin<TelegramPluginOptions>({
  name: '@parley-example/channel-telegram',
  kind: 'channel',
  coreVersion: '^0.1.0',
  provides: { channels: ['telegram'] },
  optionsSchema: {
    type: 'object', additionalProperties: false,
    properties: {
      apiBaseUrl: { type: 'string', pattern: '^https?://', default: 'https://api.telegram.org' },
      timeoutMs: { type: 'integer', minimum: 100, maximum: 120_000, default: 15_000 },
    },
  },
  register({ channels, options, host, clock }) {
    channels.add(createTelegramDriver({ ...options, publicUrl: () => host.publicUrl, clock, ...(host.media ? { media: host.media } : {}) }));
  },
});
