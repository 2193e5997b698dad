import type { InjectionToken } from 'tsyringe';
import type { ChannelDriver } from './channel/adapter.js';
import type { Clock } from './clock.js';
import type { Logger } from './logger.js';
import type { HostSettings } from './plugin.js';
import type { ExternalDataConnector } from './storage/external-data.js';
import type { Storage } from './storage/storage.js';
import type { WebhookFormat } from './webhook/format.js';


/**
 * DI tokens shared by the host and every plugin. They are global symbols, so two copies of
 * `@parley/core` still agree.
 */
export const Tokens = {
  /** The one storage back end. */
  Storage: Symbol.for('parley.core.Storage') as InjectionToken<Storage>,
  /** Channel drivers; several registrations, resolved with `resolveAll`. */
  ChannelDriver: Symbol.for('parley.core.ChannelDriver') as InjectionToken<ChannelDriver>,
  /** Webhook formats; several registrations, resolved with `resolveAll`. */
  WebhookFormat: Symbol.for('parley.core.WebhookFormat') as InjectionToken<WebhookFormat>,
  /** Connectors of per-instance external databases; several registrations, resolved with `resolveAll`. */
  ExternalDataConnector: Symbol.for('parley.core.ExternalDataConnector') as InjectionToken<ExternalDataConnector>,
  Logger: Symbol.for('parley.core.Logger') as InjectionToken<Logger>,
  HostSettings: Symbol.for('parley.core.HostSettings') as InjectionToken<HostSettings>,
  Clock: Symbol.for('parley.core.Clock') as InjectionToken<Clock>,
} as const;
