import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv } from 'ajv';
import semver from 'semver';
import type { DependencyContainer } from 'tsyringe';
import {
  CORE_VERSION, Tokens, type ChannelDriver, type Clock, type ExternalDataConnector, type HostSettings, type Logger, type PluginManifest, type Storage,
  type WebhookFormat,
} from '@parley/core';
import type { PluginEntry } from '../config/config.js';
import { formatAjvErrors } from '../http/ajv-errors.js';

/** A plugin that could not be loaded, validated or registered; the server refuses to start. */
export class PluginError extends Error {}

/** What the loaded plugins provide, after conflict checks. */
export interface LoadedPlugins {
  manifests: PluginManifest[];
  storage: Storage;
  drivers: Map<string, ChannelDriver>;
  formats: Map<string, WebhookFormat>;
  /** External-database connectors by kind (`mongodb`). */
  connectors: Map<string, ExternalDataConnector>;
}

const KINDS = ['channel', 'storage', 'webhook-format', 'extension'];

async function importManifest(entry: PluginEntry, baseDir: string): Promise<PluginManifest> {
  const spec = entry.package.startsWith('.') || isAbsolute(entry.package)
    ? pathToFileURL(resolve(baseDir, entry.package)).href
    : entry.package;
  let mod: { default?: unknown };
  try {
    mod = (await import(spec)) as { default?: unknown };
  } catch (err) {
    throw new PluginError(`plugin ${entry.package} cannot be loaded: ${(err as Error).message}`);
  }
  const m = mod.default as PluginManifest | undefined;
  if (!m || typeof m !== 'object' || typeof m.register !== 'function' || typeof m.name !== 'string') {
    throw new PluginError(`plugin ${entry.package} has no definePlugin(...) default export`);
  }
  if (!KINDS.includes(m.kind)) throw new PluginError(`plugin ${m.name}: unknown kind "${String(m.kind)}"`);
  return m;
}

/**
 * Loads the configured plugins in order: imports each manifest, validates its options with ajv
 * (strict, all errors; messages name the plugin and the field), checks `coreVersion` against this
 * core, runs `register`, then refuses conflicts — no storage or two storages, two drivers claiming
 * one channel name, two formats with one name.
 */
export async function loadPlugins(
  entries: PluginEntry[],
  context: { container: DependencyContainer; logger: Logger; host: HostSettings; clock: Clock; baseDir: string },
): Promise<LoadedPlugins> {
  const ajv = new Ajv({ allErrors: true, strict: true, useDefaults: true });
  const manifests: PluginManifest[] = [];
  const storageOwners: string[] = [];
  const driverOwners = new Map<string, string>();
  const drivers = new Map<string, ChannelDriver>();
  const formats = new Map<string, WebhookFormat>();
  const formatOwners = new Map<string, string>();
  const connectors = new Map<string, ExternalDataConnector>();

  for (const entry of entries) {
    const manifest = await importManifest(entry, context.baseDir);
    if (!semver.validRange(manifest.coreVersion) || !semver.satisfies(CORE_VERSION, manifest.coreVersion)) {
      throw new PluginError(`plugin ${manifest.name} needs @parley/core ${manifest.coreVersion}, this server has ${CORE_VERSION}`);
    }
    const options = structuredClone(entry.options ?? {});
    if (manifest.optionsSchema) {
      let validate;
      try {
        validate = ajv.compile(manifest.optionsSchema);
      } catch (err) {
        throw new PluginError(`plugin ${manifest.name} has an invalid optionsSchema: ${(err as Error).message}`);
      }
      if (!validate(options)) {
        throw new PluginError(`plugin ${manifest.name}: invalid options: ${formatAjvErrors(validate.errors ?? [], 'options')}`);
      }
    }
    // Each plugin registers into a child container, so what it registered can be attributed to it.
    const child = context.container.createChildContainer();
    await manifest.register({ container: child, options, logger: context.logger.child({ plugin: manifest.name }), host: context.host, clock: context.clock });
    if (child.isRegistered(Tokens.Storage, false)) {
      storageOwners.push(manifest.name);
      if (storageOwners.length > 1) {
        throw new PluginError(`two storage back ends configured: ${storageOwners.join(' and ')}; keep exactly one`);
      }
      context.container.register(Tokens.Storage, { useFactory: () => child.resolve(Tokens.Storage) });
    }
    for (const driver of child.isRegistered(Tokens.ChannelDriver, false) ? child.resolveAll(Tokens.ChannelDriver) : []) {
      const owner = driverOwners.get(driver.name);
      if (owner) throw new PluginError(`two drivers claim the channel "${driver.name}": ${owner} and ${manifest.name}`);
      driverOwners.set(driver.name, manifest.name);
      drivers.set(driver.name, driver);
    }
    for (const format of child.isRegistered(Tokens.WebhookFormat, false) ? child.resolveAll(Tokens.WebhookFormat) : []) {
      const owner = formatOwners.get(format.name);
      if (owner) throw new PluginError(`two webhook formats named "${format.name}": ${owner} and ${manifest.name}`);
      formatOwners.set(format.name, manifest.name);
      formats.set(format.name, format);
    }
    for (const connector of child.isRegistered(Tokens.ExternalDataConnector, false) ? child.resolveAll(Tokens.ExternalDataConnector) : []) {
      if (connectors.has(connector.kind)) throw new PluginError(`two external-database connectors for "${connector.kind}" (the second from ${manifest.name})`);
      connectors.set(connector.kind, connector);
    }
    manifests.push(manifest);
    context.logger.debug({ plugin: manifest.name, kind: manifest.kind }, 'plugin registered');
  }
  if (storageOwners.length === 0) throw new PluginError('no storage back end configured: add one storage plugin (for example @parley/storage-sqlite)');
  return { manifests, storage: context.container.resolve(Tokens.Storage), drivers, formats, connectors };
}
