import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { container as rootContainer } from 'tsyringe';
import { systemClock, type HostSettings, type Logger, type Storage } from '@parley/core';
import { ConfigError, loadConfig, type ConfigDefaults, type PluginEntry } from '../config/config.js';
import { HostContainer } from '../plugins/host-container.js';
import { loadPlugins, pluginKind, type ModuleImporter } from '../plugins/plugin-host.js';
import { StorageCopyError } from './storage-copy-error.js';

/** One side of `parley storage copy`: the storage (and media) plugins to open, and where relative paths resolve. */
export interface StorageEndpoint {
  /** How the user named it, for messages: a file path, or the package of an inline plugin entry. */
  label: string;
  /** The configuration's plugins (only its storage and media plugins are opened). */
  plugins: PluginEntry[];
  /** The data directory plugins without a path of their own use (SQLite's `parley.db`). */
  dataDir: string;
  baseDir: string;
  /** Imports the plugins named by package: the distribution's (see {@link ModuleImporter}). */
  importModule?: ModuleImporter;
}

/** What the distribution running the command supplies: its default plugins and its `import` (`@parley/distribution`). */
export interface EndpointDistribution {
  defaults?: ConfigDefaults;
  importModule?: ModuleImporter;
}

/** A plugin entry as JSON gives it: `package` and optional `options`, nothing else. */
function pluginEntry(value: unknown, where: string): PluginEntry {
  const entry = value as Partial<PluginEntry> | null;
  const extra = entry && typeof entry === 'object' ? Object.keys(entry).filter((name) => name !== 'package' && name !== 'options') : [];
  if (!entry || typeof entry !== 'object' || Array.isArray(entry) || typeof entry.package !== 'string' || entry.package === ''
    || (entry.options !== undefined && (typeof entry.options !== 'object' || entry.options === null || Array.isArray(entry.options))) || extra.length > 0) {
    throw new StorageCopyError(`${where} is not a plugin entry: expected {"package": "<name>", "options": {…}}`, 'usage');
  }
  return { package: entry.package, ...(entry.options ? { options: entry.options } : {}) };
}

/**
 * Resolves `--from` / `--to` of `parley storage copy`: inline JSON of one plugin entry
 * (`{"package": "@parley/storage-postgres", "options": {"url": "postgres://…"}}`), or the path of a JSON
 * file holding either one plugin entry or a whole server configuration (`PARLEY_CONFIG`'s format, whose
 * storage and media plugins and `dataDir` are used). The data directory of a plugin entry is
 * `PARLEY_DATA_DIR` (default `./data`), as the server's. Throws a usage {@link StorageCopyError}.
 */
export function storageEndpoint(spec: string, env: NodeJS.ProcessEnv, distribution: EndpointDistribution = {}): StorageEndpoint {
  const importing = distribution.importModule ? { importModule: distribution.importModule } : {};
  const dataEnv = env.PARLEY_DATA_DIR ? { PARLEY_DATA_DIR: env.PARLEY_DATA_DIR } : {};
  if (spec.trimStart().startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(spec);
    } catch (err) {
      throw new StorageCopyError(`the inline plugin entry is not JSON: ${(err as Error).message}`, 'usage');
    }
    const entry = pluginEntry(parsed, 'the inline JSON');
    return { label: entry.package, plugins: [entry], dataDir: loadConfig(dataEnv).dataDir, baseDir: process.cwd(), ...importing };
  }
  const path = resolve(spec);
  let file: unknown;
  try {
    file = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new StorageCopyError(`cannot read ${path}: ${(err as Error).message}`, 'usage');
  }
  if (file && typeof file === 'object' && 'package' in file) {
    return { label: path, plugins: [pluginEntry(file, path)], dataDir: loadConfig(dataEnv).dataDir, baseDir: dirname(path), ...importing };
  }
  try {
    const config = loadConfig({ ...dataEnv, PARLEY_CONFIG: path }, {}, distribution.defaults);
    return { label: path, plugins: config.plugins, dataDir: config.dataDir, baseDir: config.baseDir, ...importing };
  } catch (err) {
    if (err instanceof ConfigError) throw new StorageCopyError(err.message, 'usage');
    throw err;
  }
}

/**
 * Opens an endpoint's storage as the server would (its media store composed in), initialized. Only
 * the storage and media plugins of the configuration are registered: no channel starts.
 */
export async function openStorage(endpoint: StorageEndpoint, logger: Logger): Promise<Storage> {
  const wanted: PluginEntry[] = [];
  for (const entry of endpoint.plugins) {
    const kind = await pluginKind(entry, endpoint.baseDir, endpoint.importModule).catch((err: unknown) => {
      throw new StorageCopyError(`${endpoint.label}: ${(err as Error).message}`, 'usage');
    });
    if (kind === 'storage' || kind === 'media') wanted.push(entry);
  }
  const host: HostSettings = { dataDir: endpoint.dataDir, publicUrl: 'http://localhost', allowPrivateUrls: false };
  const container = new HostContainer(rootContainer.createChildContainer());
  const loaded = await loadPlugins(wanted, { container, logger, host, clock: systemClock, baseDir: endpoint.baseDir, importModule: endpoint.importModule }).catch((err: unknown) => {
    throw new StorageCopyError(`${endpoint.label}: ${(err as Error).message}`, 'usage');
  });
  await loaded.storage.init();
  return loaded.storage;
}
