import { dropsStatusStory, type ChannelEvent } from '@parley/core';
import type { InstanceRuntime } from '../instances/instance-runtime.js';

/**
 * The instance flags of spec 2.1 that gate events: `receive_presence` off drops presence events;
 * `receive_status_message` off drops status stories (`status@broadcast`) others post.
 */
export function instanceFilter(event: ChannelEvent, runtime: InstanceRuntime): boolean {
  const flags = runtime.record.flags;
  if (event.type === 'presence') return flags.receivePresence;
  if (event.type === 'message') return !dropsStatusStory(event.message, flags);
  return true;
}
