import { definePlugin } from '@parley/core';
import { createSignalDriver } from './driver.js';

/** Options of the plugin entry. */
export interface SignalPluginOptions {
  apiBaseUrl: string;
  timeoutMs: number;
}

/** Registers the `signal` main-channel driver. */
export default definePlugin<SignalPluginOptions>({
  name: '@parley-example/channel-signal',
  kind: 'channel',
  coreVersion: '^0.1.0',
  provides: { channels: ['signal'] },
  optionsSchema: {
    type: 'object', additionalProperties: false, required: ['apiBaseUrl'],
    properties: {
      apiBaseUrl: { type: 'string', pattern: '^https?://' },
      timeoutMs: { type: 'integer', minimum: 100, maximum: 120_000, default: 10_000 },
    },
  },
  register({ channels, options }) {
    channels.add(createSignalDriver(options));
  },
});
