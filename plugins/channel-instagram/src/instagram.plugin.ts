import { definePlugin } from '@parley/core';
import { metaGraphOptionsSchema, type MetaGraphOptions } from '@parley/meta-graph';
import { createInstagramDriver } from './instagram.driver.js';

/** Registers the `instagram` channel driver (Instagram Messaging through Meta's Graph API). */
export default definePlugin<Partial<MetaGraphOptions>>({
  name: '@parley/channel-instagram',
  kind: 'channel',
  provides: { channels: ['instagram'] },
  coreVersion: '^0.1.0',
  optionsSchema: metaGraphOptionsSchema,
  register({ channels, options, logger, host, clock }) {
    channels.add(createInstagramDriver({ ...options, logger, clock, allowPrivateUrls: host.allowPrivateUrls }));
  },
});
