import { DEFAULT_MEDIA_LIMITS, silentLogger, systemClock, type ChannelContext, type ChannelDriver } from '@parley/core';
import { MetaChannelAdapter } from '../adapter/meta-adapter.js';
import type { MetaChannelProfile } from '../channel-profile.js';
import { GraphClient } from '../graph/graph-client.js';
import { MetaMediaDownloader } from '../inbound/media-download.js';
import { linkAccount } from '../link/link-account.js';
import type { MetaOutgoingContent } from '../outbound/outgoing-message.js';
import { recordContent } from '../outbound/outgoing-record.js';
import { resolveMetaGraphOptions, type MetaDriverOptions } from '../options.js';
import { webhookRoutes } from '../webhook/webhook-routes.js';

/**
 * Builds the social driver of one Meta channel from its profile: name and channel from the profile,
 * `link` checking the token with the Graph API, one adapter per instance, and the webhook routes.
 */
export function createMetaDriver(profile: MetaChannelProfile, options: MetaDriverOptions = {}): ChannelDriver {
  const resolved = resolveMetaGraphOptions(options);
  const clock = options.clock ?? systemClock;
  const now = () => clock.now();
  const logger = (options.logger ?? silentLogger).child({ channel: profile.channel });
  const client = new GraphClient({
    baseUrl: resolved.graphBaseUrl,
    version: resolved.graphVersion,
    timeoutMs: resolved.timeoutMs,
    label: profile.label,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  // One rule for received media on every channel: the host's media.* limits of received media; the plugin's mediaMaxBytes can only tighten the size.
  const received = options.receivedMedia ?? DEFAULT_MEDIA_LIMITS;
  const hostLimit = received.maxDownloadBytes;
  const media = new MetaMediaDownloader(profile.label, {
    maxBytes: Math.min(resolved.mediaMaxBytes, hostLimit), timeoutMs: received.downloadTimeoutMs, idleMs: received.downloadIdleMs,
    allowPrivate: options.allowPrivateUrls ?? false,
    setting: resolved.mediaMaxBytes < hostLimit ? `mediaMaxBytes of the ${profile.channel} plugin` : 'media.maxDownloadBytes',
  });
  return {
    name: profile.channel,
    channel: profile.channel,
    role: 'social',
    addressing: { description: `The ${profile.userIdName} of the recipient (digits).`, phoneNumbers: false },
    create: (context: ChannelContext) => new MetaChannelAdapter(profile, context, { client, media, options: resolved, now }),
    // The channel's messaging takes only its own content types, so a queued send's content is one of them.
    pendingRecord: (content) => recordContent(content as MetaOutgoingContent),
    link: (input: Record<string, unknown>) => linkAccount(profile, client, input, now()),
    routes: webhookRoutes(profile, logger),
  };
}
