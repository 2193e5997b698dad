import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv } from 'ajv';
import semver from 'semver';
import type { DependencyContainer } from 'tsyringe';
import {
  CORE_VERSION, createRegistrar, PluginRegistrationError, Tokens, type ChannelAddressing, type ChannelDriver, type Clock, type ExternalDataConnector, type HostSettings,
  type Logger, type PluginManifest, type Sink, type Storage, type WebhookFormat,
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
  /** Event sinks by name (`amqp`, `nats`). */
  sinks: Map<string, Sink>;
  /** The external-database connector (spec 4.1 `/instance/mongodb`), when a plugin provides one. */
  externalDatabase?: ExternalDataConnector;
}

const KINDS = ['channel', 'storage', 'webhook-format', 'sink', 'extension'];

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
  if (!m.provides || typeof m.provides !== 'object') throw new PluginError(`plugin ${m.name} declares no provides (what its register adds)`);
  return m;
}

/**
 * Loads the configured plugins in order: imports each manifest, validates its options with ajv
 * (strict, all errors; messages name the plugin and the field), checks `coreVersion` against this
 * core, runs `register` with typed hooks that check each registration against the manifest's
 * `provides`, refuses conflicts — no storage or two storages, two drivers claiming one name, drivers
 * of one channel disagreeing on its addressing, two formats with one name, two external-database
 * connectors, two sinks with one name — and finally checks every manifest's `needs` against what all plugins provided.
 */
/**
 * Whether two drivers of one channel address alike: the same declared data (description, phone numbers,
 * schema) and the very same rules (normalize, kind, numberOf), as drivers sharing one implementation have.
 */
function sameAddressing(a: ChannelAddressing, b: ChannelAddressing): boolean {
  return JSON.stringify(a) === JSON.stringify(b) && a.normalize === b.normalize && a.kind === b.kind && a.numberOf === b.numberOf;
}

export async function loadPlugins(
  entries: PluginEntry[],
  context: { container: DependencyContainer; logger: Logger; host: HostSettings; clock: Clock; baseDir: string },
): Promise<LoadedPlugins> {
  const ajv = new Ajv({ allErrors: true, strict: true, useDefaults: true });
  const manifests: PluginManifest[] = [];
  const owners = new Map<string, string>();
  const drivers = new Map<string, ChannelDriver>();
  const formats = new Map<string, WebhookFormat>();
  const sinks = new Map<string, Sink>();
  let storage: Storage | undefined;
  let externalDatabase: ExternalDataConnector | undefined;
  const claim = (key: string, plugin: string, message: (owner: string) => string): void => {
    const owner = owners.get(key);
    if (owner !== undefined) throw new PluginError(message(owner));
    owners.set(key, plugin);
  };

  for (const entry of entries) {
    const manifest = await importManifest(entry, context.baseDir);
    const options = validatedOptions(ajv, manifest, entry);
    const registrar = createRegistrar(manifest);
    const registered = await registration(manifest.name, async () => {
      await manifest.register({ ...registrar.hooks, options, logger: context.logger.child({ plugin: manifest.name }), host: context.host, clock: context.clock });
      return registrar.finish();
    });
    const name = manifest.name;
    if (registered.storage) {
      claim('storage', name, (owner) => `two storage back ends configured: ${owner} and ${name}; keep exactly one`);
      storage = registered.storage;
    }
    for (const driver of registered.channels) {
      claim(`driver:${driver.name}`, name, (owner) => `two drivers claim the channel "${driver.name}": ${owner} and ${name}`);
      const peer = [...drivers.values()].find((d) => d.channel === driver.channel);
      if (peer && !sameAddressing(peer.addressing, driver.addressing)) {
        throw new PluginError(`drivers of the channel "${driver.channel}" disagree on its addressing: "${peer.name}" (${owners.get(`driver:${peer.name}`)}) and "${driver.name}" (${name})`);
      }
      drivers.set(driver.name, driver);
    }
    for (const format of registered.formats) {
      claim(`format:${format.name}`, name, (owner) => `two webhook formats named "${format.name}": ${owner} and ${name}`);
      formats.set(format.name, format);
    }
    for (const sink of registered.sinks) {
      claim(`sink:${sink.name}`, name, (owner) => `two event sinks named "${sink.name}": ${owner} and ${name}`);
      sinks.set(sink.name, sink);
    }
    for (const connector of registered.connectors) {
      claim('connector', name, (owner) => `two external-database connectors configured: ${owner} and ${name} ("${connector.kind}"); keep at most one`);
      externalDatabase = connector;
    }
    manifests.push(manifest);
    context.logger.debug({ plugin: name, kind: manifest.kind }, 'plugin registered');
  }
  if (!storage) throw new PluginError('no storage back end configured: add one storage plugin (for example @parley/storage-sqlite)');
  checkNeeds(manifests, { drivers, formats, sinks, externalDatabase });
  // The host's own services resolve the storage from its container; plugins never see the container.
  context.container.register(Tokens.Storage, { useValue: storage });
  return { manifests, storage, drivers, formats, sinks, ...(externalDatabase ? { externalDatabase } : {}) };
}

function validatedOptions(ajv: Ajv, manifest: PluginManifest, entry: PluginEntry): Record<string, unknown> {
  if (!semver.validRange(manifest.coreVersion) || !semver.satisfies(CORE_VERSION, manifest.coreVersion)) {
    throw new PluginError(`plugin ${manifest.name} needs @parley/core ${manifest.coreVersion}, this server has ${CORE_VERSION}`);
  }
  const options = structuredClone(entry.options ?? {});
  if (!manifest.optionsSchema) return options;
  let validate;
  try {
    validate = ajv.compile(manifest.optionsSchema);
  } catch (err) {
    throw new PluginError(`plugin ${manifest.name} has an invalid optionsSchema: ${(err as Error).message}`);
  }
  if (!validate(options)) throw new PluginError(`plugin ${manifest.name}: invalid options: ${formatAjvErrors(validate.errors ?? [], 'options')}`);
  return options;
}

/** Runs a plugin's registration, turning the hooks' refusals into boot errors. */
async function registration<T>(plugin: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof PluginRegistrationError) throw new PluginError(err.message);
    throw err;
  }
}

/** Refuses to boot when a manifest needs what no configured plugin provides, naming the plugin and every missing item. */
function checkNeeds(
  manifests: PluginManifest[],
  provided: { drivers: Map<string, ChannelDriver>; formats: Map<string, WebhookFormat>; sinks: Map<string, Sink>; externalDatabase?: ExternalDataConnector },
): void {
  const plugins = new Set(manifests.map((m) => m.name));
  const channels = new Set([...provided.drivers.values()].map((d) => d.channel));
  for (const manifest of manifests) {
    const needs = manifest.needs ?? {};
    const missing = [
      ...(needs.plugins ?? []).filter((p) => !plugins.has(p)).map((p) => `the plugin ${p}`),
      ...(needs.channels ?? []).filter((c) => !channels.has(c)).map((c) => `a driver of the channel "${c}"`),
      ...(needs.formats ?? []).filter((f) => !provided.formats.has(f)).map((f) => `the webhook format "${f}"`),
      ...(needs.sinks ?? []).filter((n) => !provided.sinks.has(n)).map((n) => `the event sink "${n}"`),
      ...(needs.connectors ?? []).filter((k) => provided.externalDatabase?.kind !== k).map((k) => `the external-database connector "${k}"`),
    ];
    if (missing.length > 0) throw new PluginError(`plugin ${manifest.name} needs ${missing.join(', ')}, which no configured plugin provides`);
  }
}
