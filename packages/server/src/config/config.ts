import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { DEFAULT_MEDIA_LIMITS, type MediaLimits } from '@parley/core';
import { Ajv } from 'ajv';
import { formatAjvErrors } from '../http/ajv-errors.js';
import { ClusterConfigError, resolveClusterConfig, type ClusterConfig } from './cluster-config.js';
import type { LogFormat } from '../logging/logger.js';
import { ConfigError } from './config-error.js';
import { configSchema } from './config.schema.js';
import { restoreConfig, type RestoreConfig } from './restore-config.js';

/** A plugin to load: a package name, or a path relative to the config file. */
export interface PluginEntry {
  package: string;
  options?: Record<string, unknown>;
}

/** The resolved server configuration. */
export interface ParleyConfig {
  port: number;
  host: string;
  dataDir: string;
  /** Public base URL, for links in webhooks (media URLs). Defaults to `http://localhost:<port>`. */
  publicUrl?: string;
  logLevel: string;
  /** Log lines as JSON, pretty-printed, or `auto`: pretty on a terminal, JSON otherwise (`PARLEY_LOG_FORMAT`). */
  logFormat: LogFormat;
  /** Main-channel driver of instances created without `channel`. */
  defaultChannel: string;
  /** Meta-format `object` constant. */
  serviceTag: string;
  /** Body limit of every route that does not take media (JSON-only routes). */
  bodyLimitBytes: number;
  /** Body limit of the routes that accept media inline (base64 data URIs). */
  mediaBodyLimitBytes: number;
  /**
   * Request bodies read before their caller is authenticated (public routes: Meta's webhooks):
   * `timeoutMs` to receive one, `maxBufferedBytes` held at once across all of them.
   */
  publicBodies: PublicBodiesConfig;
  /** Per client address: failed authentications (unknown key, bad admin token) allowed per window, then a block. */
  rateLimit: RateLimitConfig;
  /** Express's `trust proxy` setting: which proxies' `X-Forwarded-For` names the client address. */
  trustProxy: boolean | number | string;
  allowPrivateUrls: boolean;
  /** Instances' proxies may be on private networks; unset: as `allowPrivateUrls`. */
  allowPrivateProxies?: boolean;
  /**
   * `maxBytes`, `timeoutMs`: media fetched from URLs; `maxDownloadBytes`, `downloadTimeoutMs`,
   * `downloadIdleMs`: received media a channel downloads.
   */
  media: MediaLimits;
  /** How restored instances reconnect: bounded concurrency, a rate per channel driver. */
  restore: RestoreConfig;
  shutdownTimeoutMs: number;
  /** The outbound send queue (issue 16; docs/queue.md). */
  queue: QueueConfig;
  webhooks: Record<string, unknown>;
  plugins: PluginEntry[];
  /** Admin token from the environment, if set. */
  adminToken?: string;
  /** `GET /metrics`: `token`, a bearer token accepted there besides the admin token (for a scraper that must not hold the admin token). */
  metrics: MetricsConfig;
  /** The live event streams (`GET /{key}/events`, `GET /admin/events`) and their event log. */
  streams: StreamsConfig;
  /** The MCP server at `/mcp` (docs/mcp.md). */
  mcp: McpConfig;
  /** How the event bus rides out a storage outage (docs/events.md). */
  events: EventsConfig;
  /** Directory relative plugin paths resolve against. */
  baseDir: string;
  /** Set when this server is a node of a cluster (docs/cluster.md); undefined for a single server. */
  cluster?: ClusterConfig;
}

/** Settings of the outbound send queue. */
export interface QueueConfig {
  /** False sends at once without the queue (no pacing, `delay` or `sendAt`): the path before issue 16. */
  enabled: boolean;
  /** Default bound of an instance's queue (its policy's `maxQueued` overrides it). */
  maxQueued: number;
  /** How long a worker holds a claimed send before another may take it. */
  leaseMs: number;
  /** Longest sleep of the worker between looks at the queue. */
  recheckMs: number;
  /** Sends in flight at once, across instances (each to a different recipient). */
  concurrency: number;
}

/** Settings of the Prometheus endpoint. */
export interface MetricsConfig {
  /** A second bearer token `GET /metrics` accepts (at least 16 characters); the admin token always works. */
  token?: string;
}

/** Settings of the live event streams (docs/events.md). */
export interface StreamsConfig {
  /** How long the event log keeps events for clients that reconnect (`PARLEY_EVENT_RETENTION_SECONDS`, default 86400). */
  retentionSeconds: number;
  /** Interval of SSE comment heartbeats and WebSocket pings (default 15). */
  heartbeatSeconds: number;
  /** Open streams allowed per instance (default 100). */
  maxPerInstance: number;
  /** Open streams allowed on the server, admin streams included (default 10000). */
  maxTotal: number;
  /** Bytes a client may leave unread before it is cut off (default 262144). */
  bufferBytes: number;
}

/** How the event bus rides out a storage outage (docs/events.md, "When storage is unavailable"). */
export interface EventsConfig {
  /** How long an instance's events are retried while storage is unavailable, from the outage's first failure (default 900). */
  outageWaitSeconds: number;
  /** Events an instance may hold in memory while its storage is unavailable (default 10000). */
  maxBacklog: number;
  /** Bytes (as JSON) of the events an instance may take in while its storage is unavailable (default 64 MiB). */
  maxBacklogBytes: number;
}

/** Settings of the MCP server at `/mcp` (docs/mcp.md). */
export interface McpConfig {
  /** Serve `/mcp` (default true). */
  enabled: boolean;
  /** MCP sessions open at once on this server (default 100). */
  maxSessions: number;
  /** MCP sessions open at once per instance key (default 10). */
  maxSessionsPerInstance: number;
  /** Seconds without a request or an open stream after which a session is closed (default 600). */
  idleSeconds: number;
}

/** Bounds of request bodies read before their caller is authenticated (see `http/public-body.ts`). */
export interface PublicBodiesConfig {
  /** Time to receive the whole body, from when the route starts reading it; past it 408 and the connection is closed (default 30000). */
  timeoutMs: number;
  /** Bytes all such bodies may hold in memory at once; a body that does not fit is refused 503 with `Retry-After` (default 64 MiB). */
  maxBufferedBytes: number;
}

/** Limits on failed authentications per client address (`failures` 0 turns the limit off). */
export interface RateLimitConfig {
  failures: number;
  windowSeconds: number;
  blockSeconds: number;
}

export { ConfigError };

function envInt(env: NodeJS.ProcessEnv, name: string, min: number): number | undefined {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new ConfigError(`${name} must be an integer of at least ${min}`);
  return n;
}

/** `PARLEY_TRUST_PROXY`: `true`/`false`, a hop count, or addresses and subnets (express's forms). */
function envTrustProxy(value: string | undefined): boolean | number | string | undefined {
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  if (['true', 'yes', 'on'].includes(value.toLowerCase())) return true;
  if (['false', 'no', 'off'].includes(value.toLowerCase())) return false;
  return value;
}

function envFlag(value: string | undefined): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  return ['1', 'true', 'yes', 'on'].includes(value.toLowerCase());
}

/** `PARLEY_LOG_FORMAT`: `auto`, `json` or `pretty`. */
function logFormatOf(value: string | undefined): LogFormat | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'auto' || value === 'json' || value === 'pretty') return value;
  throw new ConfigError('PARLEY_LOG_FORMAT must be one of auto, json, pretty');
}

function metricsConfig(token: string | undefined): MetricsConfig {
  if (token === undefined) return {};
  if (token.length < 16) throw new ConfigError('PARLEY_METRICS_TOKEN (metrics.token) must be at least 16 characters');
  return { token };
}

/** What a distribution of Parley supplies beside the server's own defaults (see `@parley/distribution`). */
export interface ConfigDefaults {
  /** The plugins when the file names none: a server assembled from chosen plugins has no list of its own. */
  plugins?: PluginEntry[];
}

/**
 * Loads the configuration: embedded defaults (the plugins from `defaults`: none without), then the JSON file named by `PARLEY_CONFIG` (validated,
 * errors name the field), then environment variables (`PORT`, `HOST`, `PARLEY_DATA_DIR`,
 * `PARLEY_ADMIN_TOKEN`, `PARLEY_PUBLIC_URL`, `PARLEY_ALLOW_PRIVATE_URLS`, `LOG_LEVEL`, `PARLEY_LOG_FORMAT`, `PARLEY_RATE_LIMIT_FAILURES`,
 * `PARLEY_RATE_LIMIT_WINDOW_SECONDS`, `PARLEY_RATE_LIMIT_BLOCK_SECONDS`, `PARLEY_TRUST_PROXY`, `PARLEY_METRICS_TOKEN`,
 * `PARLEY_NODE_ID`, `PARLEY_ADVERTISE_URL`, `PARLEY_CLUSTER_SECRET`, `PARLEY_EVENT_RETENTION_SECONDS`, `PARLEY_RESTORE_CONCURRENCY`,
 * `PARLEY_RESTORE_PER_SECOND`).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<ParleyConfig> = {}, defaults: ConfigDefaults = {}): ParleyConfig {
  let file: Record<string, unknown> = {};
  let baseDir = process.cwd();
  if (env.PARLEY_CONFIG) {
    const path = resolve(env.PARLEY_CONFIG);
    baseDir = dirname(path);
    try {
      file = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    } catch (err) {
      throw new ConfigError(`cannot read config ${path}: ${(err as Error).message}`);
    }
    const ajv = new Ajv({ allErrors: true, strict: true });
    const validate = ajv.compile(configSchema);
    if (!validate(file)) throw new ConfigError(`invalid config ${path}: ${formatAjvErrors(validate.errors ?? [], 'config')}`);
  }
  const f = file as Partial<ParleyConfig>;
  let cluster: ClusterConfig | undefined;
  try {
    cluster = resolveClusterConfig(f.cluster, env);
  } catch (err) {
    if (err instanceof ClusterConfigError) throw new ConfigError(err.message);
    throw err;
  }
  const port = env.PORT !== undefined && env.PORT !== '' ? Number(env.PORT) : f.port ?? 8080;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT must be an integer from 0 to 65535`);
  const mediaMaxBytes = f.media?.maxBytes ?? DEFAULT_MEDIA_LIMITS.maxBytes;
  const dataDir = resolve(env.PARLEY_DATA_DIR || (f.dataDir ? (isAbsolute(f.dataDir) ? f.dataDir : resolve(baseDir, f.dataDir)) : './data'));
  return {
    port,
    host: env.HOST || f.host || '0.0.0.0',
    dataDir,
    publicUrl: env.PARLEY_PUBLIC_URL || f.publicUrl,
    logLevel: env.LOG_LEVEL || f.logLevel || 'info',
    logFormat: logFormatOf(env.PARLEY_LOG_FORMAT) ?? f.logFormat ?? 'auto',
    defaultChannel: f.defaultChannel ?? 'whatsapp',
    serviceTag: f.serviceTag ?? 'parley',
    bodyLimitBytes: f.bodyLimitBytes ?? 1024 * 1024,
    // A data URI of the largest media accepted: base64 is 4/3 of the bytes, plus room for the other members.
    mediaBodyLimitBytes: f.mediaBodyLimitBytes ?? Math.ceil(mediaMaxBytes / 3) * 4 + 64 * 1024,
    publicBodies: {
      // Meta's largest notification (4 MiB, the route's limit) arrives in 30 s over 1.2 Mbit/s.
      timeoutMs: f.publicBodies?.timeoutMs ?? 30_000,
      // 16 bodies at the 4 MiB limit of Meta's webhooks (real notifications are a few KiB: thousands).
      maxBufferedBytes: f.publicBodies?.maxBufferedBytes ?? 64 * 1024 * 1024,
    },
    rateLimit: {
      failures: envInt(env, 'PARLEY_RATE_LIMIT_FAILURES', 0) ?? f.rateLimit?.failures ?? 50,
      windowSeconds: envInt(env, 'PARLEY_RATE_LIMIT_WINDOW_SECONDS', 1) ?? f.rateLimit?.windowSeconds ?? 60,
      blockSeconds: envInt(env, 'PARLEY_RATE_LIMIT_BLOCK_SECONDS', 1) ?? f.rateLimit?.blockSeconds ?? 300,
    },
    trustProxy: envTrustProxy(env.PARLEY_TRUST_PROXY) ?? f.trustProxy ?? false,
    allowPrivateUrls: envFlag(env.PARLEY_ALLOW_PRIVATE_URLS) ?? f.allowPrivateUrls ?? false,
    allowPrivateProxies: envFlag(env.PARLEY_ALLOW_PRIVATE_PROXIES) ?? f.allowPrivateProxies,
    media: {
      maxBytes: mediaMaxBytes, timeoutMs: f.media?.timeoutMs ?? DEFAULT_MEDIA_LIMITS.timeoutMs,
      maxDownloadBytes: f.media?.maxDownloadBytes ?? DEFAULT_MEDIA_LIMITS.maxDownloadBytes,
      downloadTimeoutMs: f.media?.downloadTimeoutMs ?? DEFAULT_MEDIA_LIMITS.downloadTimeoutMs,
      downloadIdleMs: f.media?.downloadIdleMs ?? DEFAULT_MEDIA_LIMITS.downloadIdleMs,
    },
    restore: restoreConfig(env, f.restore),
    shutdownTimeoutMs: f.shutdownTimeoutMs ?? 10000,
    queue: {
      enabled: f.queue?.enabled ?? true, maxQueued: f.queue?.maxQueued ?? 10_000, leaseMs: f.queue?.leaseMs ?? 60_000,
      recheckMs: f.queue?.recheckMs ?? 1_000, concurrency: f.queue?.concurrency ?? 64,
    },
    webhooks: (f.webhooks as Record<string, unknown>) ?? {},
    plugins: f.plugins ?? defaults.plugins ?? [],
    adminToken: env.PARLEY_ADMIN_TOKEN || undefined,
    metrics: metricsConfig(env.PARLEY_METRICS_TOKEN || f.metrics?.token),
    streams: {
      retentionSeconds: envInt(env, 'PARLEY_EVENT_RETENTION_SECONDS', 60) ?? f.streams?.retentionSeconds ?? 86_400,
      heartbeatSeconds: f.streams?.heartbeatSeconds ?? 15,
      maxPerInstance: f.streams?.maxPerInstance ?? 100,
      maxTotal: f.streams?.maxTotal ?? 10_000,
      bufferBytes: f.streams?.bufferBytes ?? 256 * 1024,
    },
    events: {
      outageWaitSeconds: f.events?.outageWaitSeconds ?? 900,
      maxBacklog: f.events?.maxBacklog ?? 10_000,
      maxBacklogBytes: f.events?.maxBacklogBytes ?? 64 * 1024 * 1024,
    },
    mcp: {
      enabled: f.mcp?.enabled ?? true,
      maxSessions: f.mcp?.maxSessions ?? 100,
      maxSessionsPerInstance: f.mcp?.maxSessionsPerInstance ?? 10,
      idleSeconds: f.mcp?.idleSeconds ?? 600,
    },
    baseDir,
    ...(cluster ? { cluster } : {}),
    ...overrides,
  };
}
