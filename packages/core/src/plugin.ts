import type { DependencyContainer } from 'tsyringe';
import type { Clock } from './clock.js';
import type { Logger } from './logger.js';

/** Version of the plugin contract; plugins declare the semver range they were built for. */
export const CORE_VERSION = '0.1.0';

/** What a plugin provides. The host refuses two storage plugins and two drivers claiming one name. */
export type PluginKind = 'channel' | 'storage' | 'webhook-format' | 'extension';

/** Host settings every plugin may read. */
export interface HostSettings {
  /** Directory for persistent files (`PARLEY_DATA_DIR`). */
  dataDir: string;
  /** Public base URL of the REST API, for links in webhooks. */
  publicUrl: string;
  /** When true, user-supplied URLs may point to private networks (`PARLEY_ALLOW_PRIVATE_URLS=1`). */
  allowPrivateUrls: boolean;
  /**
   * Limits of media fetched from user-supplied URLs (`media` of the configuration). Plugins that fetch
   * such URLs themselves (catalog images handed to a channel) apply the same limits as the server.
   * Absent in hosts that do not set them: {@link DEFAULT_MEDIA_LIMITS} apply.
   */
  media?: MediaLimits;
}

/** Size and time limits of one media fetch. */
export interface MediaLimits {
  /** Largest body accepted, in bytes (413 above it). */
  maxBytes: number;
  /** Time allowed for the whole fetch, redirects included. */
  timeoutMs: number;
}

/** The configuration's default media limits: 16 MiB within 15 s. */
export const DEFAULT_MEDIA_LIMITS: Readonly<MediaLimits> = Object.freeze({ maxBytes: 16 * 1024 * 1024, timeoutMs: 15_000 });

/** What `register` receives. */
export interface PluginContext<Options> {
  /** The server's container: register drivers, storage or formats under the core tokens. */
  container: DependencyContainer;
  /** The plugin's options, already validated against `optionsSchema`. */
  options: Options;
  logger: Logger;
  host: HostSettings;
  /** The server's clock: storage back ends, drivers and formats take their time from it (tests control it). */
  clock: Clock;
}

/** A plugin manifest: the default export of a plugin package. */
export interface PluginManifest<Options = Record<string, unknown>> {
  /** Package-like name, for messages (`@parley/storage-sqlite`). */
  name: string;
  kind: PluginKind;
  /** Semver range of {@link CORE_VERSION} the plugin supports. */
  coreVersion: string;
  /** JSON Schema of the options; the host validates with ajv (strict, all errors). */
  optionsSchema?: Record<string, unknown>;
  /** Registers the plugin's providers. Must not start I/O; storage connects in `init`. */
  register(context: PluginContext<Options>): void | Promise<void>;
}

/** Declares a plugin. Identity at run time; it exists for typing and one obvious entry point. */
export function definePlugin<Options = Record<string, unknown>>(manifest: PluginManifest<Options>): PluginManifest<Options> {
  return manifest;
}
