import type { ChannelAddressing, MessageRecord } from '@parley/core';
import type { MediaResolver, MediaRoute } from '../services/media-resolver.js';
import type { SendingChannel } from './sending-channel.js';

/** What building a content may use: the media resolver, the checked channel and the target message. */
export interface Env {
  media: MediaResolver;
  /** How the instance reaches URLs (its proxy): media are fetched the way the instance would. */
  route: MediaRoute;
  channel: SendingChannel;
  /** How the instance's main channel addresses people (mentions, a product's owner). */
  addressing: ChannelAddressing;
  /** The message a reaction or pin acts on (see {@link Mapping.targetOf}). */
  target?: MessageRecord;
}
