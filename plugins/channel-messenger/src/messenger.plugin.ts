import { definePlugin } from '@parley/core';
import { metaGraphOptionsSchema, type MetaGraphOptions } from '@parley/meta-graph';
import { createMessengerDriver } from './messenger.driver.js';

/** Registers the `messenger` channel driver (Messenger Platform through Meta's Graph API). */
export default definePlugin<Partial<MetaGraphOptions>>({
  name: '@parley/channel-messenger',
  kind: 'channel',
  provides: { channels: ['messenger'] },
  coreVersion: '^0.1.0',
  optionsSchema: metaGraphOptionsSchema,
  register({ channels, options, logger, host, clock }) {
    channels.add(createMessengerDriver({ ...options, logger, clock, allowPrivateUrls: host.allowPrivateUrls }));
  },
});
