import { definePlugin, type PluginManifest } from '@parley/core';
import type { MetaChannelProfile } from '../channel-profile.js';
import { createMetaDriver } from '../driver/meta-driver.js';
import { metaGraphOptionsSchema, type MetaGraphOptions } from '../options.js';

/**
 * The plugin manifest of one Meta channel: it provides the profile's channel, takes the shared
 * Graph options and registers {@link createMetaDriver} with the host's logger, clock and URL policy.
 * Instagram and Messenger differ only in `name` and `profile`, so neither writes its own manifest.
 */
export function defineMetaChannelPlugin(name: string, profile: MetaChannelProfile): PluginManifest<Partial<MetaGraphOptions>> {
  return definePlugin<Partial<MetaGraphOptions>>({
    name,
    kind: 'channel',
    provides: { channels: [profile.channel] },
    coreVersion: '^0.1.0',
    optionsSchema: metaGraphOptionsSchema,
    register({ channels, options, logger, host, clock }) {
      channels.add(createMetaDriver(profile, {
        ...options, logger, clock, allowPrivateUrls: host.allowPrivateUrls,
        ...(host.media ? { receivedMedia: host.media } : {}),
      }));
    },
  });
}
