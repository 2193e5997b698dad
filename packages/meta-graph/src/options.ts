import type { Clock, Logger, ReceivedMediaLimits } from '@parley/core';

/** Plugin options shared by the Instagram and Messenger channel plugins. */
export interface MetaGraphOptions {
  /** Graph API origin (and optional path prefix), without the version: `https://graph.facebook.com`. */
  graphBaseUrl: string;
  /**
   * Graph API version segment of every call. Defaults to {@link GRAPH_API_VERSION}, the current
   * version when this package was released; pin another one while an upgrade is being tested.
   */
  graphVersion: string;
  /** Time limit of one Graph API call, in milliseconds. */
  timeoutMs: number;
  /**
   * Looks up the sender's name, username and picture after a webhook is answered, so later messages
   * of that sender carry them (Meta's webhooks carry ids only).
   */
  profileLookup: boolean;
  /** Minimum time a message id is remembered to drop Meta's redeliveries, in hours. */
  dedupWindowHours: number;
  /**
   * Largest attachment downloaded from Meta's CDN, in bytes (Meta's own limit is 25 MB). It can only
   * tighten the host's `media.maxDownloadBytes`, the limit of received media on every channel.
   */
  mediaMaxBytes: number;
}

/**
 * The Graph API version used when none is configured: v26.0, the latest one Meta's changelog
 * (developers.facebook.com/docs/graph-api/changelog) lists as released (July 29, 2026).
 */
export const GRAPH_API_VERSION = 'v26.0';

/** Defaults of {@link MetaGraphOptions}. */
export const META_GRAPH_DEFAULTS: Readonly<MetaGraphOptions> = {
  graphBaseUrl: 'https://graph.facebook.com',
  graphVersion: GRAPH_API_VERSION,
  timeoutMs: 15_000,
  profileLookup: true,
  dedupWindowHours: 48,
  mediaMaxBytes: 25 * 1024 * 1024,
};

/**
 * JSON Schema of the plugin options (ajv strict mode: no formats, every keyword typed). The host
 * validates with it; {@link resolveMetaGraphOptions} fills the defaults.
 */
export const metaGraphOptionsSchema: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  properties: {
    graphBaseUrl: { type: 'string', pattern: '^https?://[^\\s/?#]+(/[^\\s?#]*)?$' },
    graphVersion: { type: 'string', pattern: '^v\\d+\\.\\d+$' },
    timeoutMs: { type: 'integer', minimum: 1000, maximum: 120000 },
    profileLookup: { type: 'boolean' },
    dedupWindowHours: { type: 'integer', minimum: 1, maximum: 720 },
    mediaMaxBytes: { type: 'integer', minimum: 1024, maximum: 104857600 },
  },
};

/** What a driver factory accepts: the plugin options plus injected collaborators (tests, host). */
export interface MetaDriverOptions extends Partial<MetaGraphOptions> {
  /** HTTP client; defaults to the global `fetch`. */
  fetch?: typeof fetch;
  clock?: Clock;
  logger?: Logger;
  /**
   * Lets media downloads reach private addresses (the host's `PARLEY_ALLOW_PRIVATE_URLS`); Meta's
   * CDN is public, so only tests against a loopback CDN turn it on.
   */
  allowPrivateUrls?: boolean;
  /**
   * The host's limits of received media (`media.maxDownloadBytes`, `media.downloadTimeoutMs`,
   * `media.downloadIdleMs`); default those of `DEFAULT_MEDIA_LIMITS`.
   */
  receivedMedia?: ReceivedMediaLimits;
}

/** Fills the defaults of every absent option. */
export function resolveMetaGraphOptions(options: Partial<MetaGraphOptions>): MetaGraphOptions {
  return {
    graphBaseUrl: options.graphBaseUrl ?? META_GRAPH_DEFAULTS.graphBaseUrl,
    graphVersion: options.graphVersion ?? META_GRAPH_DEFAULTS.graphVersion,
    timeoutMs: options.timeoutMs ?? META_GRAPH_DEFAULTS.timeoutMs,
    profileLookup: options.profileLookup ?? META_GRAPH_DEFAULTS.profileLookup,
    dedupWindowHours: options.dedupWindowHours ?? META_GRAPH_DEFAULTS.dedupWindowHours,
    mediaMaxBytes: options.mediaMaxBytes ?? META_GRAPH_DEFAULTS.mediaMaxBytes,
  };
}
