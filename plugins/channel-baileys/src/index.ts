import { definePlugin, type PluginManifest } from '@parley/core';
import { createBaileysDriver, type BaileysDriverInput } from './baileys.driver.js';
import { baileysOptionsSchema, type BaileysOptions } from './options.js';

export { BaileysAdapter, BAILEYS_CAPABILITY_GAPS, type BaileysAdapterDeps } from './baileys.adapter.js';
export { createBaileysDriver, type BaileysDriverInput } from './baileys.driver.js';
export { loadStorageAuthState, type StorageAuthState } from './auth/storage-auth-state.js';
export { baileysOptionsSchema, resolveOptions, type BaileysOptions, type ResolvedBaileysOptions, type ReconnectPolicy, type HealthPolicy } from './options.js';
export type { BaileysSocket, SocketFactory } from './socket.js';
export type { MediaDownloader } from './runtime.js';

/**
 * What a test server hands the plugin's driver besides the host's settings: a socket factory (a
 * fake socket instead of WhatsApp's servers), the TLS and host names of a local stand-in for
 * WhatsApp's media CDN. Production loads the default export, which has none.
 */
export type BaileysPluginTestInput = Pick<BaileysDriverInput, 'socketFactory' | 'mediaTls' | 'resolveHost'>;

/** The plugin manifest, its driver built from the host's settings (and, in tests, `testInput`). */
export function baileysPlugin(testInput: BaileysPluginTestInput = {}): PluginManifest<BaileysOptions> {
  return definePlugin<BaileysOptions>({
    name: '@parley/channel-baileys',
    kind: 'channel',
    provides: { channels: ['whatsapp'] },
    coreVersion: '^0.1.0',
    optionsSchema: baileysOptionsSchema,
    register(ctx) {
      const driver = createBaileysDriver({
        options: ctx.options, logger: ctx.logger, allowPrivateUrls: ctx.host.allowPrivateUrls,
        ...(ctx.host.allowPrivateProxies === undefined ? {} : { allowPrivateProxy: ctx.host.allowPrivateProxies }), now: () => ctx.clock.now(),
        ...(ctx.host.media ? { mediaLimits: ctx.host.media } : {}),
        ...testInput,
      });
      ctx.channels.add(driver);
    },
  });
}

/** `@parley/channel-baileys`: the WhatsApp main channel on Baileys. */
export default baileysPlugin();
