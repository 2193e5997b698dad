import type { ChannelDriver } from './channel/adapter.js';
import type { Clock } from './clock.js';
import type { PluginEventSubscriber } from './extension/event-subscriber.js';
import type { HostDeps, ResolvedDeps } from './host-token.js';
import type { Logger } from './logger.js';
import type { Sink } from './sink/sink.js';
import type { ExternalDataConnector } from './storage/external-data.js';
import type { MediaStore } from './storage/media-store.js';
import type { Outbox, RecordStore, Storage } from './storage/storage.js';
import type { WebhookFormat } from './webhook/format.js';

/** Version of the plugin contract; plugins declare the semver range they were built for. */
export const CORE_VERSION = '0.1.0';

/** A label of what a plugin is about, for listings; what it really adds is declared in {@link PluginProvides}. */
export type PluginKind = 'channel' | 'storage' | 'media' | 'webhook-format' | 'sink' | 'extension';

/** Host settings every plugin may read. */
export interface HostSettings {
  /** Directory for persistent files (`PARLEY_DATA_DIR`). */
  dataDir: string;
  /** Public base URL of the REST API, for links in webhooks. */
  publicUrl: string;
  /** When true, user-supplied URLs may point to private networks (`PARLEY_ALLOW_PRIVATE_URLS=1`). */
  allowPrivateUrls: boolean;
  /**
   * When true, instances' proxies may be on private networks even where other user-supplied URLs may
   * not (`PARLEY_ALLOW_PRIVATE_PROXIES=1`: an egress proxy inside the operator's network). Absent:
   * `allowPrivateUrls` decides for proxies too.
   */
  allowPrivateProxies?: boolean;
  /**
   * Limits of media (`media` of the configuration): of media fetched from user-supplied URLs, which
   * plugins that fetch such URLs themselves (catalog images handed to a channel) apply as the server
   * does, and of received media, which every channel applies to the attachments it downloads.
   * Absent in hosts that do not set them: {@link DEFAULT_MEDIA_LIMITS} apply.
   */
  media?: MediaLimits;
}

/** Size and time limits of media. */
export interface MediaLimits {
  /** Largest body fetched from a user-supplied URL, in bytes (413 `payload_too_large` above it). */
  maxBytes: number;
  /** Time allowed for the whole fetch of a user-supplied URL, redirects included. */
  timeoutMs: number;
  /**
   * Largest received media a channel downloads (`media.maxDownloadBytes`): the attachment of a
   * message a remote party sent, downloaded for `GET /{key}/message/{id}/media` or for `save_media`.
   * A channel refuses before downloading when the message declares a larger size, and stops reading
   * (closing the connection) once more arrives than this, whatever the message declared: a
   * `MediaTooLargeError` (413 `media_too_large`) either way.
   */
  maxDownloadBytes: number;
  /**
   * Time allowed for the whole download of one received media (`media.downloadTimeoutMs`),
   * redirects and re-upload requests included. The sender chose the link, so its host may answer
   * as slowly as it likes: past this the download is stopped (its connection closed) with a
   * `MediaDownloadTimeoutError` (504 `media_download_timeout`).
   */
  downloadTimeoutMs: number;
  /**
   * Longest wait for the next bytes of a received media download (`media.downloadIdleMs`): for the
   * response's headers once the request is sent, then between two chunks of its body. Past it the
   * same 504 `media_download_timeout`, long before the whole download's deadline.
   */
  downloadIdleMs: number;
}

/** The limits of received media (`media.maxDownloadBytes`, `media.downloadTimeoutMs`, `media.downloadIdleMs`), as channels take them. */
export type ReceivedMediaLimits = Pick<MediaLimits, 'maxDownloadBytes' | 'downloadTimeoutMs' | 'downloadIdleMs'>;

/**
 * The configuration's default media limits: URLs up to 16 MiB within 15 s; received media up to
 * 100 MiB (WhatsApp's document limit for years, and well above its image, audio and video sizes;
 * documents can now reach 2 GB, which no server should hold in memory for one stranger's message),
 * within 5 minutes (100 MiB at about 2.8 Mbit/s) and with at most 30 s without a byte.
 */
export const DEFAULT_MEDIA_LIMITS: Readonly<MediaLimits> = Object.freeze({
  maxBytes: 16 * 1024 * 1024, timeoutMs: 15_000, maxDownloadBytes: 100 * 1024 * 1024, downloadTimeoutMs: 300_000, downloadIdleMs: 30_000,
});

/**
 * What a plugin adds to the server, declared in its manifest. The host checks it at boot: a plugin
 * that registers anything it did not declare, or declares something it did not register, refuses to
 * boot, so a manifest can be read to know what a plugin does without running it.
 */
export interface PluginProvides {
  /** Names of the channel drivers it adds with `channels.add` (`sandbox`, `instagram`). */
  readonly channels?: readonly string[];
  /** Names of the webhook formats it adds with `formats.add` (`native`). */
  readonly formats?: readonly string[];
  /**
   * True when it sets a whole storage back end — record store and outbox in one object — with
   * `storage.set`. It means `records` and `outbox` both, as it always has for storage plugins.
   */
  readonly storage?: boolean;
  /** True when it sets the record store alone (instances, messages, chats, contacts, media, auth state, state) with `records.set`. */
  readonly records?: boolean;
  /** True when it sets the outbox alone (deliveries, outbound queue, event log, idempotency keys) with `outbox.set`. */
  readonly outbox?: boolean;
  /** True when it sets the media store with `media.set` (media bytes kept apart from the storage back end). */
  readonly media?: boolean;
  /** Kinds of the external-database connectors it adds with `connectors.add` (`mongodb`). */
  readonly connectors?: readonly string[];
  /** Names of the event sinks it adds with `sinks.add` (`amqp`, `nats`). */
  readonly sinks?: readonly string[];
  /** Names of the in-process event subscribers it adds with `subscribers.add` (`event-counter`). */
  readonly subscribers?: readonly string[];
}

/**
 * What a plugin needs from the other configured plugins, like Fastify's `dependencies` and
 * `decorators` metadata. The host checks it once every plugin has registered (order does not
 * matter) and refuses to boot naming the plugin and each missing item.
 */
export interface PluginNeeds {
  /** Plugin names (`@parley/storage-mongodb`) that must be configured too. */
  readonly plugins?: readonly string[];
  /** Wire channels some configured driver must drive (`whatsapp`). */
  readonly channels?: readonly string[];
  /** Webhook formats that must be registered. */
  readonly formats?: readonly string[];
  /** External-database connector kinds that must be registered. */
  readonly connectors?: readonly string[];
  /** Event sinks that must be registered. */
  readonly sinks?: readonly string[];
}

/**
 * The typed registration hooks a plugin's `register` receives. Each adds one provider, checked at
 * once against the manifest's {@link PluginProvides} and the id syntax (a PluginError-style `Error`
 * naming the plugin when it does not fit).
 */
export interface PluginHooks {
  /** Channel drivers: `channels.add(driver)`. Driver names and wire channels must be channel ids. */
  readonly channels: { add(driver: ChannelDriver): void };
  /** Webhook formats: `formats.add(format)`. */
  readonly formats: { add(format: WebhookFormat): void };
  /** The storage back end, both halves in one object: `storage.set(storage)`, at most once (`provides.storage`). */
  readonly storage: { set(storage: Storage): void };
  /** The record store alone: `records.set(store)`, at most once (`provides.records`); another plugin provides the outbox. */
  readonly records: { set(store: RecordStore): void };
  /** The outbox alone: `outbox.set(outbox)`, at most once (`provides.outbox`); another plugin provides the record store. */
  readonly outbox: { set(outbox: Outbox): void };
  /** The media store (`kind: 'media'`): `media.set(store)`, at most once; it replaces the record store's `media`. */
  readonly media: { set(store: MediaStore): void };
  /** External-database connectors: `connectors.add(connector)`. */
  readonly connectors: { add(connector: ExternalDataConnector): void };
  /** Event sinks: `sinks.add(sink)`. Sink names must be lower-case ids, unique over all plugins. */
  readonly sinks: { add(sink: Sink): void };
  /**
   * In-process event subscribers (the extension point of `kind: 'extension'` plugins):
   * `subscribers.add(subscriber)`. Names must be lower-case ids, unique over all plugins.
   */
  readonly subscribers: { add(subscriber: PluginEventSubscriber): void };
}

/**
 * What `register` receives: the typed hooks, the validated options, a logger, the host settings, the
 * clock, and the host services the manifest's `deps` declared, resolved.
 */
export interface PluginContext<Options, Deps extends HostDeps = HostDeps> extends PluginHooks {
  /** The plugin's options, already validated against `optionsSchema`. */
  options: Options;
  logger: Logger;
  host: HostSettings;
  /** The server's clock: storage back ends, drivers and formats take their time from it (tests control it). */
  clock: Clock;
  /** The host services of the manifest's {@link PluginManifest.deps}, resolved by the host's container. */
  deps: ResolvedDeps<Deps>;
}

/** A plugin manifest: the default export of a plugin package. */
export interface PluginManifest<Options = Record<string, unknown>, Deps extends HostDeps = HostDeps> {
  /** Package-like name, for messages (`@parley/storage-sqlite`). */
  name: string;
  kind: PluginKind;
  /** Semver range of {@link CORE_VERSION} the plugin supports. */
  coreVersion: string;
  /** What `register` adds; checked by the host. */
  provides: PluginProvides;
  /** What must be configured beside it; checked by the host after every plugin registered. */
  needs?: PluginNeeds;
  /** JSON Schema of the options; the host validates with ajv (strict, all errors). */
  optionsSchema?: Record<string, unknown>;
  /**
   * The host services `register` needs, by token (`{ storage: Tokens.Storage }`), as Backstage
   * modules declare `deps`: the host resolves them from its container and hands them over as
   * `context.deps`, typed. A token the host does not know, or a service built from what this very
   * plugin provides (a cycle), refuses the boot naming the plugin. A plugin needing a service the
   * server builds from every plugin's registrations ({@link Tokens.Channels}, {@link Tokens.Sends})
   * registers after the server is composed, and may then add only event subscribers.
   */
  deps?: Deps;
  /** Registers the plugin's providers through the hooks. Must not start I/O; storage connects in `init`. */
  register(context: PluginContext<Options, Deps>): void | Promise<void>;
}

/**
 * Declares a plugin. Identity at run time; it exists for typing and one obvious entry point. Give
 * `Deps` as `typeof deps` when `Options` is given explicitly (TypeScript infers both or neither).
 */
export function definePlugin<Options = Record<string, unknown>, Deps extends HostDeps = HostDeps>(manifest: PluginManifest<Options, Deps>): PluginManifest<Options, Deps> {
  return manifest;
}
