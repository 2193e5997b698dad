import { runServerProcess, type PluginEntry, type ServerProcessOptions } from '@parley/server';

export * from '@parley/server';

/**
 * The plugins a server of this distribution loads when its configuration names none: zero set-up,
 * everything persisted in SQLite under the data directory, every channel and webhook format of the
 * repository. `@parley/storage-mongodb/external` stands by for instances that bring their own database.
 */
export const DEFAULT_PLUGINS: readonly PluginEntry[] = Object.freeze([
  { package: '@parley/storage-sqlite' },
  { package: '@parley/webhook-native' },
  { package: '@parley/webhook-meta' },
  { package: '@parley/channel-baileys' },
  { package: '@parley/channel-sandbox' },
  { package: '@parley/channel-instagram' },
  { package: '@parley/channel-messenger' },
  { package: '@parley/storage-mongodb/external' },
]);

/**
 * Imports a plugin named by package from this distribution, which depends on every plugin it offers:
 * `@parley/server` itself depends on none, so its own resolution would not find them in a strict install.
 */
export const importPlugin = (specifier: string): Promise<unknown> => import(specifier);

/**
 * What this distribution gives the server's entry points: its default plugins and its `import`. Pass it
 * to `runServerProcess` and to `storageEndpoint` (what `parley start` and `parley storage copy` do).
 */
export function distribution(): ServerProcessOptions {
  return { defaults: { plugins: DEFAULT_PLUGINS.map((entry) => ({ ...entry })) }, importModule: importPlugin };
}

/**
 * Runs the server as this process's whole job (`npm start`, `parley-server`, `parley start`) with this
 * distribution's defaults: see `runServerProcess` of `@parley/server` for the configuration, the banner
 * and the graceful stop.
 */
export function runParley(): Promise<void> {
  return runServerProcess(distribution());
}
