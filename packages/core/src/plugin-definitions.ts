import { definePlugin, type PluginContext, type PluginManifest } from './plugin.js';
import type { Storage } from './storage/storage.js';
import type { WebhookFormat } from './webhook/format.js';

/**
 * Declares a webhook-format plugin that takes no options: it provides the format `format` and
 * registers the one {@link WebhookFormat} `create` builds (its `name` must be `format`).
 */
export function defineFormatPlugin(name: string, format: string, create: () => WebhookFormat): PluginManifest<Record<string, never>> {
  return definePlugin<Record<string, never>>({
    name,
    kind: 'webhook-format',
    provides: { formats: [format] },
    coreVersion: '^0.1.0',
    optionsSchema: { type: 'object', properties: {}, additionalProperties: false },
    register({ formats }) {
      formats.add(create());
    },
  });
}

/** What a storage plugin declares: its name, its options schema and how it builds its back end. */
export interface StoragePluginDefinition<Options> {
  /** Package-like name (`@parley/storage-redis`). */
  name: string;
  /** JSON Schema of the options; the host validates with ajv (strict, all errors). */
  optionsSchema: Record<string, unknown>;
  /** Builds the back end from the validated options and the host's logger, clock and settings. Must not start I/O. */
  create(context: PluginContext<Options>): Storage;
}

/**
 * Declares a storage plugin: `kind: 'storage'`, `provides: { storage: true }`, and a `register` that
 * sets the one back end {@link StoragePluginDefinition.create} builds. Every storage back end is wired
 * this way, so a new one writes only what differs.
 */
export function defineStoragePlugin<Options>(definition: StoragePluginDefinition<Options>): PluginManifest<Options> {
  return definePlugin<Options>({
    name: definition.name,
    kind: 'storage',
    provides: { storage: true },
    coreVersion: '^0.1.0',
    optionsSchema: definition.optionsSchema,
    register(context) {
      context.storage.set(definition.create(context));
    },
  });
}

/**
 * Options every networked storage back end (Redis, MongoDB) takes beside its URL: how long message
 * history is kept and how long one call may take. How expiry runs is the back end's own (see its README).
 */
export interface StorageLimitOptions {
  /** Days of message history to keep, by message timestamp; 0 keeps everything. Default 0. */
  messageRetentionDays?: number;
  /** Upper bound of one storage operation in ms; past it the call fails with HTTP 503. Default 5000. */
  commandTimeoutMs?: number;
}

/** JSON Schema properties of {@link StorageLimitOptions}, to spread into a back end's options schema. */
export const storageLimitOptionProperties = {
  messageRetentionDays: { type: 'integer', minimum: 0 },
  commandTimeoutMs: { type: 'integer', minimum: 100, maximum: 600000 },
} as const;

/** {@link StorageLimitOptions} with their defaults applied. */
export function resolveStorageLimits(options: StorageLimitOptions): Required<StorageLimitOptions> {
  return { messageRetentionDays: options.messageRetentionDays ?? 0, commandTimeoutMs: options.commandTimeoutMs ?? 5000 };
}

/** Options of a storage back end on a server of its own: where the server is, and the {@link StorageLimitOptions}. */
export interface NetworkStorageOptions extends StorageLimitOptions {
  /** The server's URL, in the back end's scheme. Defaults to the back end's environment variable, then to its local default. */
  url?: string;
}

/**
 * The JSON Schema of a networked back end's options: `url` matching `urlPattern`, the back end's own
 * `properties`, and the {@link StorageLimitOptions}; any other member is refused.
 */
export function networkStorageOptionsSchema<Properties extends Record<string, object>>(urlPattern: string, properties: Properties) {
  return {
    type: 'object',
    additionalProperties: false,
    properties: { url: { type: 'string', pattern: urlPattern }, ...properties, ...storageLimitOptionProperties },
  } as const;
}

/**
 * {@link NetworkStorageOptions} with defaults applied: `url` from the options, else `envUrl` (the back
 * end's environment variable) when not empty, else `localUrl`.
 */
export function resolveNetworkStorageOptions(options: NetworkStorageOptions, envUrl: string | undefined, localUrl: string): Required<NetworkStorageOptions> {
  return { url: options.url ?? (envUrl || localUrl), ...resolveStorageLimits(options) };
}
