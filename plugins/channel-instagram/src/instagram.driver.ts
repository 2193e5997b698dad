import type { ChannelDriver } from '@parley/core';
import { createMetaDriver, type MetaDriverOptions } from '@parley/meta-graph';
import { instagramProfile } from './instagram.profile.js';

/** The `instagram` social driver, with injectable options (Graph base URL, fetch, clock) for tests. */
export function createInstagramDriver(options: MetaDriverOptions = {}): ChannelDriver {
  return createMetaDriver(instagramProfile, options);
}
