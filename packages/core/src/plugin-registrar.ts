import type { ChannelDriver } from './channel/adapter.js';
import { isChannelId } from './domain/channel-name.js';
import type { PluginEventSubscriber } from './extension/event-subscriber.js';
import type { PluginHooks, PluginManifest, PluginProvides } from './plugin.js';
import type { Sink } from './sink/sink.js';
import type { ExternalDataConnector } from './storage/external-data.js';
import type { MediaStore } from './storage/media-store.js';
import { OUTBOX_KEYS, RECORD_STORE_KEYS, STORAGE_KEYS } from './storage/storage-keys.js';
import type { Outbox, RecordStore, Storage, StoreLifecycle } from './storage/storage.js';
import type { WebhookFormat } from './webhook/format.js';

/** A registration that does not fit the plugin's manifest or the id syntax. */
export class PluginRegistrationError extends Error {}

/** What one plugin registered through its hooks, in registration order. */
export interface PluginRegistrations {
  channels: ChannelDriver[];
  formats: WebhookFormat[];
  /** The storage back end set with `storage.set` (then also {@link records} and {@link outbox}). */
  storage?: Storage;
  /** The record store: set with `records.set`, or the back end set with `storage.set`. */
  records?: RecordStore;
  /** The outbox: set with `outbox.set`, or the back end set with `storage.set`. */
  outbox?: Outbox;
  media?: MediaStore;
  connectors: ExternalDataConnector[];
  sinks: Sink[];
  subscribers: PluginEventSubscriber[];
}

/** The hooks handed to one plugin's `register`, and what they collected. */
export interface PluginRegistrar {
  readonly hooks: PluginHooks;
  /**
   * What the plugin registered. Throws {@link PluginRegistrationError} when the manifest declares
   * something `register` did not add. Call once, after `register` resolved.
   */
  finish(): PluginRegistrations;
}

const ID_RULE = 'a lower-case letter, then up to 31 lower-case letters, digits or dashes';

const LIFECYCLE = ['init', 'health', 'flush', 'close'] as const;

/** What `store` lacks of a store with the repositories `keys` (the repositories and lifecycle methods it does not have). */
function lacking(store: unknown, keys: readonly string[]): string[] {
  if (typeof store !== 'object' || store === null) return ['everything: it is not an object'];
  const members = store as Record<string, unknown>;
  return [
    ...(typeof members.name === 'string' && members.name !== '' ? [] : ['a name']),
    ...keys.filter((key) => typeof members[key] !== 'object' || members[key] === null),
    ...LIFECYCLE.filter((method) => typeof (store as Partial<StoreLifecycle>)[method] !== 'function').map((method) => `${method}()`),
  ];
}

/**
 * Builds the typed hooks of one plugin. Each hook checks its registration at once — the id syntax
 * and that the manifest's `provides` declares it — so the error points at the plugin that is wrong.
 * The server's plugin host and `@parley/testkit`'s `registerPlugin` both register through it.
 */
export function createRegistrar(manifest: Pick<PluginManifest<never>, 'name' | 'provides'>): PluginRegistrar {
  const plugin = manifest.name;
  const provides: PluginProvides = manifest.provides ?? {};
  const collected: PluginRegistrations = { channels: [], formats: [], connectors: [], sinks: [], subscribers: [] };
  const refuse = (message: string): never => {
    throw new PluginRegistrationError(`plugin ${plugin}: ${message}`);
  };
  const checkStore = (store: unknown, keys: readonly string[], what: string): void => {
    const missing = lacking(store, keys);
    if (missing.length > 0) refuse(`set ${what} without ${missing.join(', ')}`);
  };
  const declared = (list: readonly string[] | undefined, name: string, what: string, field: string): void => {
    if (!list?.includes(name)) refuse(`registered the ${what} "${name}" without declaring it in provides.${field}`);
  };

  const hooks: PluginHooks = {
    channels: {
      add(driver) {
        if (!isChannelId(driver?.name)) refuse(`channel driver name "${String(driver?.name)}" is not a channel id (${ID_RULE})`);
        if (!isChannelId(driver.channel)) refuse(`driver "${driver.name}" drives "${String(driver.channel)}", which is not a channel id (${ID_RULE})`);
        if (typeof driver.addressing?.description !== 'string' || typeof driver.addressing.phoneNumbers !== 'boolean') {
          refuse(`driver "${driver.name}" declares no addressing (description and phoneNumbers)`);
        }
        declared(provides.channels, driver.name, 'channel driver', 'channels');
        if (collected.channels.some((d) => d.name === driver.name)) refuse(`registered the channel driver "${driver.name}" twice`);
        collected.channels.push(driver);
      },
    },
    formats: {
      add(format) {
        declared(provides.formats, format.name, 'webhook format', 'formats');
        if (collected.formats.some((f) => f.name === format.name)) refuse(`registered the webhook format "${format.name}" twice`);
        collected.formats.push(format);
      },
    },
    storage: {
      set(storage) {
        if (provides.storage !== true && !(provides.records === true && provides.outbox === true)) {
          refuse('set a storage back end without declaring provides.storage (or provides.records and provides.outbox)');
        }
        if (collected.storage) refuse('set the storage back end twice');
        if (collected.records || collected.outbox) refuse('set a storage back end beside a record store or an outbox it set alone');
        checkStore(storage, STORAGE_KEYS, 'a storage back end');
        collected.storage = storage;
        collected.records = storage;
        collected.outbox = storage;
      },
    },
    records: {
      set(store) {
        if (provides.records !== true) refuse('set a record store without declaring provides.records');
        if (collected.records) refuse('set the record store twice');
        checkStore(store, RECORD_STORE_KEYS, 'a record store');
        collected.records = store;
      },
    },
    outbox: {
      set(outbox) {
        if (provides.outbox !== true) refuse('set an outbox without declaring provides.outbox');
        if (collected.outbox) refuse('set the outbox twice');
        checkStore(outbox, OUTBOX_KEYS, 'an outbox');
        collected.outbox = outbox;
      },
    },
    media: {
      set(store) {
        if (provides.media !== true) refuse('set a media store without declaring provides.media');
        if (collected.media) refuse('set the media store twice');
        if (typeof store?.name !== 'string' || typeof store.put !== 'function') refuse('set a media store without a name and put/get/delete/clear');
        collected.media = store;
      },
    },
    connectors: {
      add(connector) {
        declared(provides.connectors, connector.kind, 'external-database connector', 'connectors');
        if (collected.connectors.some((c) => c.kind === connector.kind)) refuse(`registered the connector "${connector.kind}" twice`);
        collected.connectors.push(connector);
      },
    },
    sinks: {
      add(sink) {
        if (!isChannelId(sink?.name)) refuse(`sink name "${String(sink?.name)}" is not a sink id (${ID_RULE})`);
        declared(provides.sinks, sink.name, 'event sink', 'sinks');
        if (collected.sinks.some((s) => s.name === sink.name)) refuse(`registered the event sink "${sink.name}" twice`);
        collected.sinks.push(sink);
      },
    },
    subscribers: {
      add(subscriber) {
        if (!isChannelId(subscriber?.name)) refuse(`event subscriber name "${String(subscriber?.name)}" is not an id (${ID_RULE})`);
        if (typeof subscriber.handle !== 'function') refuse(`event subscriber "${subscriber.name}" has no handle(event)`);
        declared(provides.subscribers, subscriber.name, 'event subscriber', 'subscribers');
        if (collected.subscribers.some((s) => s.name === subscriber.name)) refuse(`registered the event subscriber "${subscriber.name}" twice`);
        collected.subscribers.push(subscriber);
      },
    },
  };

  return {
    hooks,
    finish() {
      const missing = (list: readonly string[] | undefined, got: string[], what: string, field: string) => {
        for (const name of list ?? []) if (!got.includes(name)) refuse(`declares the ${what} "${name}" in provides.${field} but did not register it`);
      };
      missing(provides.channels, collected.channels.map((d) => d.name), 'channel driver', 'channels');
      missing(provides.formats, collected.formats.map((f) => f.name), 'webhook format', 'formats');
      missing(provides.connectors, collected.connectors.map((c) => c.kind), 'external-database connector', 'connectors');
      missing(provides.sinks, collected.sinks.map((s) => s.name), 'event sink', 'sinks');
      missing(provides.subscribers, collected.subscribers.map((s) => s.name), 'event subscriber', 'subscribers');
      if (provides.storage === true && !collected.storage) refuse('declares provides.storage but did not set a storage back end');
      if (provides.records === true && !collected.records) refuse('declares provides.records but did not set a record store');
      if (provides.outbox === true && !collected.outbox) refuse('declares provides.outbox but did not set an outbox');
      if (provides.media === true && !collected.media) refuse('declares provides.media but did not set a media store');
      return collected;
    },
  };
}
