import { silentLogger, systemClock, type ChannelDriver, type Clock, type HostSettings, type Logger, type PluginManifest } from '@parley/core';
import { container, type DependencyContainer } from 'tsyringe';

/** Host settings of a test registration: nothing on disk is touched and no URL is public. */
const TEST_HOST: HostSettings = { dataDir: '/nonexistent', publicUrl: 'http://127.0.0.1:1', allowPrivateUrls: false };

/**
 * Calls a plugin's `register` the way the host does, into a fresh child container of tsyringe's root
 * (so tests never see each other's providers), and answers that container to resolve what the plugin
 * registered. The options are passed as given: the host's schema validation is not part of this.
 */
export async function registerPlugin<Options>(
  plugin: PluginManifest<Options>,
  options: Options,
  overrides: { logger?: Logger; host?: Partial<HostSettings>; clock?: Clock } = {},
): Promise<DependencyContainer> {
  const child = container.createChildContainer();
  await plugin.register({
    container: child, options, logger: overrides.logger ?? silentLogger, host: { ...TEST_HOST, ...overrides.host },
    clock: overrides.clock ?? systemClock,
  });
  return child;
}

/** What a manifest test compares of a registered channel driver: identity, role, `link` and routes. */
export function driverSummary(driver: ChannelDriver): { name: string; channel: string; role: ChannelDriver['role']; link: string; routes?: string[] } {
  return {
    name: driver.name, channel: driver.channel, role: driver.role, link: typeof driver.link,
    routes: driver.routes?.map((route) => `${route.method} ${route.path}${route.rawBody ? ' raw' : ''}`),
  };
}
