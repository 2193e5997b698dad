import { definePlugin, PluginRegistrationError, type Logger, type PluginManifest } from '@parley/core';
import { routeLibsignalConsole } from '@parley/whatsapp-sim/libsignal-console';
import { quietBaileysModuleLogger } from './connection/module-logger.js';
import { startInProcessSimulator, type InProcessSimulator } from './simulator/in-process.js';
import { createBaileysDriver } from './baileys.driver.js';
import { baileysOptionsSchema, type BaileysOptions } from './options.js';

export { BaileysAdapter, BAILEYS_CAPABILITY_GAPS, type BaileysAdapterDeps } from './baileys.adapter.js';
export { createBaileysDriver, type BaileysDriverInput } from './baileys.driver.js';
export { loadStorageAuthState, type StorageAuthState } from './auth/storage-auth-state.js';
export { baileysOptionsSchema, resolveOptions, type BaileysOptions, type SimulatorOptions, type ResolvedBaileysOptions, type ReconnectPolicy, type HealthPolicy } from './options.js';
export type { BaileysSocket, SocketFactory } from './socket.js';
export type { MediaDownloader } from './runtime.js';

/** The plugin manifest, its driver built from the host's settings. */
export function baileysPlugin(): PluginManifest<BaileysOptions> {
  return definePlugin<BaileysOptions>({
    name: '@parley/channel-baileys',
    kind: 'channel',
    provides: { channels: ['whatsapp'] },
    coreVersion: '^0.1.0',
    optionsSchema: baileysOptionsSchema,
    async register(ctx) {
      quietLibraries(ctx.logger);
      const simulator = ctx.options.simulator ? await startSimulatorFor(ctx.options, ctx.logger) : undefined;
      const options = simulator ? simulatorOptions(ctx.options, simulator) : ctx.options;
      const driver = createBaileysDriver({
        options, logger: ctx.logger, ...(simulator ? { simulator } : {}), allowPrivateUrls: ctx.host.allowPrivateUrls,
        ...(ctx.host.allowPrivateProxies === undefined ? {} : { allowPrivateProxy: ctx.host.allowPrivateProxies }), now: () => ctx.clock.now(),
        ...(ctx.host.media ? { mediaLimits: ctx.host.media } : {}),
      });
      ctx.channels.add(driver);
    },
  });
}

let libsignalRouted = false;

/**
 * libsignal (Baileys' Signal implementation) prints sessions with `console.info` — private and root keys
 * included — into the server's output. Once per process, its messages go to the logger at debug level
 * instead, without the session objects. Baileys' own process-wide logger is quieted too.
 */
function quietLibraries(logger: Logger): void {
  quietBaileysModuleLogger();
  if (libsignalRouted) return;
  libsignalRouted = true;
  routeLibsignalConsole((level, message) => logger[level]({ libsignal: message }, 'libsignal'));
}

/** Starts the in-process simulator of the `simulator` option, which replaces the endpoint options. */
async function startSimulatorFor(options: BaileysOptions, logger: Logger): Promise<InProcessSimulator> {
  if (options.webSocketUrl || options.serverRootKey) {
    throw new PluginRegistrationError('@parley/channel-baileys: options.simulator starts its own server: leave webSocketUrl and serverRootKey out');
  }
  return startInProcessSimulator(options.simulator!, logger);
}

/** The channel's options on the in-process simulator: its endpoint, and its root as the only one trusted. */
function simulatorOptions(options: BaileysOptions, simulator: InProcessSimulator): BaileysOptions {
  const { simulator: _started, ...rest } = options;
  return { ...rest, webSocketUrl: simulator.url, serverRootKey: simulator.rootPublicKey.toString('base64') };
}

/** `@parley/channel-baileys`: the WhatsApp main channel on Baileys. */
export default baileysPlugin();
