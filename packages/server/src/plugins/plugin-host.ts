import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Ajv } from 'ajv';
import semver from 'semver';
import type { DependencyContainer } from 'tsyringe';
import {
  CORE_VERSION, createRegistrar, PluginRegistrationError, Tokens, type MediaStore, type ChannelAddressing, type ChannelDriver, type Clock,
  type ExternalDataConnector, type HostSettings, type Logger, type PluginEventSubscriber, type PluginManifest, type PluginRegistrations, type Sink,
  type Outbox, type RecordStore, type Storage, type WebhookFormat,
} from '@parley/core';
import { composeStorage, withMediaStore } from '@parley/host';
import type { PluginEntry } from '../config/config.js';
import { formatAjvErrors } from '../http/ajv-errors.js';
import { HostContainer } from './host-container.js';
import { PluginError, pluginPhase, resolvedDeps, type PluginPhase } from './plugin-deps.js';

export { PluginError };

/** What the loaded plugins provide, after conflict checks. */
export interface LoadedPlugins {
  /** Every configured plugin's manifest, in configuration order. */
  manifests: PluginManifest[];
  storage: Storage;
  drivers: Map<string, ChannelDriver>;
  formats: Map<string, WebhookFormat>;
  /** Event sinks by name (`amqp`, `nats`). */
  sinks: Map<string, Sink>;
  /** In-process event subscribers by name (`kind: 'extension'` plugins); filled up by {@link registerComposed}. */
  subscribers: Map<string, PluginEventSubscriber>;
  /** The external-database connector (spec 4.1 `/instance/mongodb`), when a plugin provides one. */
  externalDatabase?: ExternalDataConnector;
  /**
   * Registers the plugins whose `deps` need a composed service (the channels, the send path): call
   * once, after the server registered those services in the container. They add only event subscribers.
   */
  registerComposed(): Promise<void>;
}

/** A plugin imported and validated, waiting for its turn to register. */
interface ImportedPlugin {
  manifest: PluginManifest;
  options: Record<string, unknown>;
  phase: PluginPhase;
}

const KINDS = ['channel', 'storage', 'media', 'webhook-format', 'sink', 'extension'];

/**
 * Imports a plugin's module. A package name is resolved from the code that assembled the server (a
 * distribution depends on its plugins; `@parley/server` depends on none), so the distribution passes
 * its own `import`; without one, the server's module resolution is used (a workspace or flat install).
 */
export type ModuleImporter = (specifier: string) => Promise<unknown>;

const serverImport: ModuleImporter = (specifier) => import(specifier);

async function importManifest(entry: PluginEntry, baseDir: string, importModule: ModuleImporter): Promise<PluginManifest> {
  const relativeFile = entry.package.startsWith('.') || isAbsolute(entry.package);
  const spec = relativeFile ? pathToFileURL(resolve(baseDir, entry.package)).href : entry.package;
  let mod: { default?: unknown };
  try {
    mod = (await (relativeFile ? serverImport : importModule)(spec)) as { default?: unknown };
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

/** The kind of a configured plugin (`storage`, `media`, `channel`…), importing its manifest without registering it. */
export async function pluginKind(entry: PluginEntry, baseDir: string, importModule: ModuleImporter = serverImport): Promise<PluginManifest['kind']> {
  return (await importManifest(entry, baseDir, importModule)).kind;
}

/**
 * Whether two drivers of one channel address alike: the same declared data (description, phone numbers,
 * schema, group ids) and the very same rules (normalize, kind, numberOf, groups' normalize), as drivers
 * sharing one implementation have.
 */
function sameAddressing(a: ChannelAddressing, b: ChannelAddressing): boolean {
  return JSON.stringify(a) === JSON.stringify(b) && a.normalize === b.normalize && a.kind === b.kind && a.numberOf === b.numberOf
    && a.groups?.normalize === b.groups?.normalize;
}

/**
 * Loads the configured plugins: imports each manifest, validates its options with ajv (strict, all
 * errors; messages name the plugin and the field), checks `coreVersion` against this core and its
 * `deps` against the container (unknown tokens and cycles refused, naming the plugin), then runs
 * `register` in configuration order — a plugin needing the storage after the storage plugin, one
 * needing a composed service at {@link LoadedPlugins.registerComposed} — with typed hooks that check
 * each registration against the manifest's `provides` and its deps resolved; refuses conflicts — no
 * storage, half of it (a record store without an outbox or the reverse, naming the half missing), two record
 * stores or two outboxes (two storages among them), two drivers claiming one name, drivers of one channel disagreeing on its
 * addressing, two formats with one name, two external-database connectors, two sinks or subscribers
 * with one name — and finally checks every manifest's `needs` against what all plugins provided.
 */
export async function loadPlugins(
  entries: PluginEntry[],
  context: {
    container: DependencyContainer | HostContainer; logger: Logger; host: HostSettings; clock: Clock; baseDir: string; importModule?: ModuleImporter;
  },
): Promise<LoadedPlugins> {
  const services = context.container instanceof HostContainer ? context.container : new HostContainer(context.container);
  // What every plugin may need at once: the host's logger, clock and settings.
  if (!services.has(Tokens.Logger)) services.value(Tokens.Logger, context.logger);
  if (!services.has(Tokens.Clock)) services.value(Tokens.Clock, context.clock);
  if (!services.has(Tokens.HostSettings)) services.value(Tokens.HostSettings, context.host);
  const ajv = new Ajv({ allErrors: true, strict: true, useDefaults: true });
  const imported: ImportedPlugin[] = [];
  for (const entry of entries) {
    const manifest = await importManifest(entry, context.baseDir, context.importModule ?? serverImport);
    imported.push({ manifest, options: validatedOptions(ajv, manifest, entry), phase: pluginPhase(manifest, services) });
  }
  const collected = new Collected();
  const register = async ({ manifest, options }: ImportedPlugin): Promise<void> => {
    const logger = context.logger.child({ plugin: manifest.name });
    const registrar = createRegistrar(manifest);
    const registered = await registration(manifest.name, async () => {
      const deps = resolvedDeps(manifest, services, logger);
      await manifest.register({ ...registrar.hooks, options, logger, host: context.host, clock: context.clock, deps });
      return registrar.finish();
    });
    collected.add(manifest.name, registered);
    // Plugins needing the storage register next; the host's own services resolve it from the container too.
    if ((registered.records || registered.outbox) && collected.storage) services.value(Tokens.Storage, collected.storage);
    context.logger.debug({ plugin: manifest.name, kind: manifest.kind }, 'plugin registered');
  };
  // A media store first (the storage is composed with it as it is set), then in configuration order, but a
  // plugin needing the storage after the storage plugin and one needing a composed service last.
  for (const plugin of imported) if (plugin.manifest.kind === 'media') await register(plugin);
  const afterStorage: ImportedPlugin[] = [];
  for (const plugin of imported) {
    if (plugin.phase === 'composed' || plugin.manifest.kind === 'media') continue;
    if (plugin.phase === 'storage' && !collected.storage) afterStorage.push(plugin);
    else await register(plugin);
    if (collected.storage) for (const waiting of afterStorage.splice(0)) await register(waiting);
  }
  const storage = collected.storage ?? collected.refuseMissingHalf();
  const manifests = imported.map((p) => p.manifest);
  const { drivers, formats, sinks, subscribers, externalDatabase } = collected;
  checkNeeds(manifests, { drivers, formats, sinks, externalDatabase });
  let composed: Promise<void> | undefined;
  return {
    manifests, storage, drivers, formats, sinks, subscribers, ...(externalDatabase ? { externalDatabase } : {}),
    registerComposed() {
      composed ??= (async () => {
        for (const plugin of imported) if (plugin.phase === 'composed') await register(plugin);
      })();
      return composed;
    },
  };
}

/** What the registered plugins added, refusing conflicts as they come. */
class Collected {
  /** The storage composed of the record store and the outbox, with its media in the media store when a plugin set one. */
  storage?: Storage;
  records?: RecordStore;
  outbox?: Outbox;
  media?: MediaStore;
  externalDatabase?: ExternalDataConnector;
  readonly drivers = new Map<string, ChannelDriver>();
  readonly formats = new Map<string, WebhookFormat>();
  readonly sinks = new Map<string, Sink>();
  readonly subscribers = new Map<string, PluginEventSubscriber>();
  private readonly owners = new Map<string, string>();

  add(name: string, registered: PluginRegistrations): void {
    if (registered.media) {
      this.claim('media', name, (owner) => `two media stores configured: ${owner} and ${name}; keep at most one`);
      this.media = registered.media;
    }
    const what = registered.storage ? 'storage back ends' : undefined;
    if (registered.records) {
      this.claim('records', name, (owner) => `two ${what ?? 'record stores'} configured: ${owner} and ${name}; keep exactly one`);
      this.records = registered.records;
    }
    if (registered.outbox) {
      this.claim('outbox', name, (owner) => `two ${what ?? 'outboxes'} configured: ${owner} and ${name}; keep exactly one`);
      this.outbox = registered.outbox;
    }
    if ((registered.records || registered.outbox) && this.records && this.outbox) {
      const storage = composeStorage(this.records, this.outbox);
      this.storage = this.media ? withMediaStore(storage, this.media) : storage;
    }
    for (const driver of registered.channels) {
      this.claim(`driver:${driver.name}`, name, (owner) => `two drivers claim the channel "${driver.name}": ${owner} and ${name}`);
      const peer = [...this.drivers.values()].find((d) => d.channel === driver.channel);
      if (peer && !sameAddressing(peer.addressing, driver.addressing)) {
        throw new PluginError(`drivers of the channel "${driver.channel}" disagree on its addressing: "${peer.name}" (${this.owners.get(`driver:${peer.name}`)}) and "${driver.name}" (${name})`);
      }
      this.drivers.set(driver.name, driver);
    }
    for (const format of registered.formats) {
      this.claim(`format:${format.name}`, name, (owner) => `two webhook formats named "${format.name}": ${owner} and ${name}`);
      this.formats.set(format.name, format);
    }
    for (const sink of registered.sinks) {
      this.claim(`sink:${sink.name}`, name, (owner) => `two event sinks named "${sink.name}": ${owner} and ${name}`);
      this.sinks.set(sink.name, sink);
    }
    for (const subscriber of registered.subscribers) {
      this.claim(`subscriber:${subscriber.name}`, name, (owner) => `two event subscribers named "${subscriber.name}": ${owner} and ${name}`);
      this.subscribers.set(subscriber.name, subscriber);
    }
    for (const connector of registered.connectors) {
      this.claim('connector', name, (owner) => `two external-database connectors configured: ${owner} and ${name} ("${connector.kind}"); keep at most one`);
      this.externalDatabase = connector;
    }
  }

  /** Refuses the boot for want of a record store, an outbox or both, naming the plugin that provides the other half. */
  refuseMissingHalf(): never {
    const own = (half: string) => this.owners.get(half);
    if (this.records) {
      throw new PluginError(`no outbox configured: ${own('records')} provides the record store only; add a plugin providing the outbox (provides.outbox, or a storage back end providing both)`);
    }
    if (this.outbox) {
      throw new PluginError(`no record store configured: ${own('outbox')} provides the outbox only; add a plugin providing the record store (provides.records, or a storage back end providing both)`);
    }
    throw new PluginError('no storage back end configured: add one storage plugin to the configuration\'s `plugins` (for example @parley/storage-sqlite), or start the server from a distribution that lists its defaults (@parley/distribution)');
  }

  private claim(key: string, plugin: string, message: (owner: string) => string): void {
    const owner = this.owners.get(key);
    if (owner !== undefined) throw new PluginError(message(owner));
    this.owners.set(key, plugin);
  }
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
