import type { InjectionToken } from 'tsyringe';
import type { Clock } from './clock.js';
import type { Logger } from './logger.js';
import type { HostSettings } from './plugin.js';
import type { Storage } from './storage/storage.js';


/**
 * DI tokens of the host's container (tsyringe). Plugins do not use them: they register through the
 * typed hooks of `PluginContext`. They are global symbols, so two copies of `@parley/core` still agree.
 */
export const Tokens = {
  /** The one storage back end (the host registers what a plugin set with `storage.set`). */
  Storage: Symbol.for('parley.core.Storage') as InjectionToken<Storage>,
  Logger: Symbol.for('parley.core.Logger') as InjectionToken<Logger>,
  HostSettings: Symbol.for('parley.core.HostSettings') as InjectionToken<HostSettings>,
  Clock: Symbol.for('parley.core.Clock') as InjectionToken<Clock>,
} as const;
