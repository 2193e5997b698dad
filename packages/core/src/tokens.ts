import type { ChannelDirectory } from './channel/directory.js';
import type { Clock } from './clock.js';
import type { HostSends } from './extension/host-sends.js';
import type { Logger } from './logger.js';
import type { HostSettings } from './plugin.js';
import type { Storage } from './storage/storage.js';
import type { HostToken } from './host-token.js';

/**
 * The host services a plugin may declare in its manifest's `deps` (the server's own wiring resolves
 * them, and more of its own, from the same container):
 *
 * - at registration time: {@link Tokens.Logger} (bound to the plugin's name), {@link Tokens.Clock},
 *   {@link Tokens.HostSettings}, and {@link Tokens.Storage} (the plugin registers after the storage
 *   plugin; the back end is not initialised yet, so no I/O in `register`);
 * - built by the server from what every plugin registered, so a plugin needing one registers after
 *   the server is composed and may then add only event subscribers: {@link Tokens.Channels},
 *   {@link Tokens.Sends}.
 */
export const Tokens = {
  /** The one storage back end (what the storage plugin set with `storage.set`). */
  Storage: Symbol.for('parley.core.Storage') as HostToken<Storage>,
  /** The server's logger; a plugin receives a child bound to its name. */
  Logger: Symbol.for('parley.core.Logger') as HostToken<Logger>,
  HostSettings: Symbol.for('parley.core.HostSettings') as HostToken<HostSettings>,
  Clock: Symbol.for('parley.core.Clock') as HostToken<Clock>,
  /** The registered channels and their addressing (built once every channel plugin registered). */
  Channels: Symbol.for('parley.core.Channels') as HostToken<ChannelDirectory>,
  /** The server's send path, for plugins that answer events with messages. */
  Sends: Symbol.for('parley.core.Sends') as HostToken<HostSends>,
} as const;
