import type { ChannelDriver } from '@parley/core';
import { createMetaDriver, type MetaDriverOptions } from '@parley/meta-graph';
import { messengerProfile } from './messenger.profile.js';

/** The `messenger` social driver, with injectable options (Graph base URL, fetch, clock) for tests. */
export function createMessengerDriver(options: MetaDriverOptions = {}): ChannelDriver {
  return createMetaDriver(messengerProfile, options);
}
