import assert from 'node:assert/strict';
import { createRegistrar, silentLogger, systemClock, type ChannelDriver, type Clock, type HostDeps, type HostSettings, type Logger, type PluginManifest, type PluginRegistrations, type ResolvedDeps } from '@parley/core';

/** Host settings of a test registration: nothing on disk is touched and no URL is public. */
const TEST_HOST: HostSettings = { dataDir: '/nonexistent', publicUrl: 'http://127.0.0.1:1', allowPrivateUrls: false };

/**
 * Calls a plugin's `register` the way the host does — through the typed hooks of `@parley/core`'s
 * `createRegistrar`, which check every registration against the manifest's `provides` — and answers
 * what it registered (drivers, formats, storage and its halves, connectors, sinks, subscribers). The options are passed
 * as given: the host's schema validation is not part of this; `deps` are the host services the
 * manifest declares, as the test provides them.
 */
export async function registerPlugin<Options, Deps extends HostDeps = HostDeps>(
  plugin: PluginManifest<Options, Deps>,
  options: Options,
  overrides: { logger?: Logger; host?: Partial<HostSettings>; clock?: Clock; deps?: ResolvedDeps<Deps> } = {},
): Promise<PluginRegistrations> {
  const registrar = createRegistrar(plugin);
  await plugin.register({
    ...registrar.hooks, options, logger: overrides.logger ?? silentLogger, host: { ...TEST_HOST, ...overrides.host }, clock: overrides.clock ?? systemClock,
    deps: overrides.deps ?? ({} as ResolvedDeps<Deps>),
  });
  return registrar.finish();
}

/** What a manifest test compares of a registered channel driver: identity, role, addressing, `link` and routes. */
export function driverSummary(driver: ChannelDriver): {
  name: string; channel: string; role: ChannelDriver['role']; phoneNumbers: boolean; link: string; routes?: string[];
} {
  return {
    name: driver.name, channel: driver.channel, role: driver.role, phoneNumbers: driver.addressing.phoneNumbers, link: typeof driver.link,
    routes: driver.routes?.map((route) => `${route.method} ${route.path}${route.rawBody ? ' raw' : ''}`),
  };
}

/**
 * Asserts a storage plugin's manifest: its name, `kind: 'storage'`, the supported core range, and a
 * closed options schema (`additionalProperties: false`) with exactly `optionNames`.
 */
export function assertStorageManifest<Options>(plugin: PluginManifest<Options>, name: string, optionNames: readonly string[]): void {
  assert.equal(plugin.name, name);
  assert.equal(plugin.kind, 'storage');
  assert.equal(plugin.coreVersion, '^0.1.0');
  const schema = plugin.optionsSchema as { additionalProperties?: unknown; properties: Record<string, unknown> };
  assert.equal(schema.additionalProperties, false);
  assert.deepEqual(Object.keys(schema.properties).sort(), [...optionNames].sort());
}
