import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { DEFAULT_MEDIA_LIMITS } from '@parley/core';
import { Ajv } from 'ajv';
import { formatAjvErrors } from '../http/ajv-errors.js';
import { configSchema } from './config.schema.js';

/** A plugin to load: a package name, or a path relative to the config file. */
export interface PluginEntry {
  package: string;
  options?: Record<string, unknown>;
}

/** The resolved server configuration. */
export interface ParleyConfig {
  port: number;
  host: string;
  dataDir: string;
  /** Public base URL, for links in webhooks (media URLs). Defaults to `http://localhost:<port>`. */
  publicUrl?: string;
  logLevel: string;
  /** Main-channel driver of instances created without `channel`. */
  defaultChannel: string;
  /** Meta-format `object` constant. */
  serviceTag: string;
  bodyLimitBytes: number;
  allowPrivateUrls: boolean;
  media: { maxBytes: number; timeoutMs: number };
  restore: { staggerMs: number };
  shutdownTimeoutMs: number;
  webhooks: Record<string, unknown>;
  plugins: PluginEntry[];
  /** Admin token from the environment, if set. */
  adminToken?: string;
  /** Directory relative plugin paths resolve against. */
  baseDir: string;
}

/** The embedded defaults: zero set-up, everything persisted in SQLite under the data directory. */
export const DEFAULT_PLUGINS: PluginEntry[] = [
  { package: '@parley/storage-sqlite' },
  { package: '@parley/webhook-native' },
  { package: '@parley/webhook-meta' },
  { package: '@parley/channel-baileys' },
  { package: '@parley/channel-sandbox' },
  { package: '@parley/channel-instagram' },
  { package: '@parley/channel-messenger' },
  { package: '@parley/storage-mongodb/external' },
];

/** Raised for an unreadable or invalid configuration; the CLI prints it and exits 1. */
export class ConfigError extends Error {}

function envFlag(value: string | undefined): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  return ['1', 'true', 'yes', 'on'].includes(value.toLowerCase());
}

/**
 * Loads the configuration: embedded defaults, then the JSON file named by `PARLEY_CONFIG` (validated,
 * errors name the field), then environment variables (`PORT`, `HOST`, `PARLEY_DATA_DIR`,
 * `PARLEY_ADMIN_TOKEN`, `PARLEY_PUBLIC_URL`, `PARLEY_ALLOW_PRIVATE_URLS`, `LOG_LEVEL`).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<ParleyConfig> = {}): ParleyConfig {
  let file: Record<string, unknown> = {};
  let baseDir = process.cwd();
  if (env.PARLEY_CONFIG) {
    const path = resolve(env.PARLEY_CONFIG);
    baseDir = dirname(path);
    try {
      file = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    } catch (err) {
      throw new ConfigError(`cannot read config ${path}: ${(err as Error).message}`);
    }
    const ajv = new Ajv({ allErrors: true, strict: true });
    const validate = ajv.compile(configSchema);
    if (!validate(file)) throw new ConfigError(`invalid config ${path}: ${formatAjvErrors(validate.errors ?? [], 'config')}`);
  }
  const f = file as Partial<ParleyConfig>;
  const port = env.PORT !== undefined && env.PORT !== '' ? Number(env.PORT) : f.port ?? 8080;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT must be an integer from 0 to 65535`);
  const dataDir = resolve(env.PARLEY_DATA_DIR || (f.dataDir ? (isAbsolute(f.dataDir) ? f.dataDir : resolve(baseDir, f.dataDir)) : './data'));
  return {
    port,
    host: env.HOST || f.host || '0.0.0.0',
    dataDir,
    publicUrl: env.PARLEY_PUBLIC_URL || f.publicUrl,
    logLevel: env.LOG_LEVEL || f.logLevel || 'info',
    defaultChannel: f.defaultChannel ?? 'whatsapp',
    serviceTag: f.serviceTag ?? 'parley',
    bodyLimitBytes: f.bodyLimitBytes ?? 32 * 1024 * 1024,
    allowPrivateUrls: envFlag(env.PARLEY_ALLOW_PRIVATE_URLS) ?? f.allowPrivateUrls ?? false,
    media: { maxBytes: f.media?.maxBytes ?? DEFAULT_MEDIA_LIMITS.maxBytes, timeoutMs: f.media?.timeoutMs ?? DEFAULT_MEDIA_LIMITS.timeoutMs },
    restore: { staggerMs: f.restore?.staggerMs ?? 500 },
    shutdownTimeoutMs: f.shutdownTimeoutMs ?? 10000,
    webhooks: (f.webhooks as Record<string, unknown>) ?? {},
    plugins: f.plugins ?? DEFAULT_PLUGINS,
    adminToken: env.PARLEY_ADMIN_TOKEN || undefined,
    baseDir,
    ...overrides,
  };
}
