import { restoreSchema } from './restore-config.js';
import { clusterConfigSchema } from './cluster-config.js';

/** JSON Schema of the server's JSON config file (`PARLEY_CONFIG`). */
export const configSchema = {
  $id: 'parley.config',
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string' },
    port: { type: 'integer', minimum: 0, maximum: 65535 },
    host: { type: 'string', minLength: 1 },
    dataDir: { type: 'string', minLength: 1 },
    publicUrl: { type: 'string', pattern: '^https?://' },
    logLevel: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] },
    logFormat: { enum: ['auto', 'json', 'pretty'], description: 'auto: pretty-printed on a terminal, JSON otherwise' },
    defaultChannel: { type: 'string', minLength: 1 },
    serviceTag: { type: 'string', minLength: 1, maxLength: 64 },
    bodyLimitBytes: { type: 'integer', minimum: 1024, maximum: 268435456 },
    mediaBodyLimitBytes: { type: 'integer', minimum: 1024, maximum: 536870912 },
    publicBodies: {
      type: 'object',
      additionalProperties: false,
      description: 'Bounds of request bodies read before their caller is authenticated (public routes: Meta\'s webhooks).',
      properties: {
        timeoutMs: { type: 'integer', minimum: 100, maximum: 600000 },
        maxBufferedBytes: { type: 'integer', minimum: 1024, maximum: 4294967296 },
      },
    },
    rateLimit: {
      type: 'object',
      additionalProperties: false,
      properties: {
        failures: { type: 'integer', minimum: 0, maximum: 1000000 },
        windowSeconds: { type: 'integer', minimum: 1, maximum: 86400 },
        blockSeconds: { type: 'integer', minimum: 1, maximum: 86400 },
      },
    },
    trustProxy: {
      description: 'true, a hop count, or comma-separated addresses/subnets (express "trust proxy").',
      anyOf: [{ type: 'boolean' }, { type: 'integer', minimum: 0 }, { type: 'string', minLength: 1 }],
    },
    allowPrivateUrls: { type: 'boolean' },
    allowPrivateProxies: { type: 'boolean' },
    media: {
      type: 'object',
      additionalProperties: false,
      properties: {
        maxBytes: { type: 'integer', minimum: 1024, maximum: 268435456 },
        timeoutMs: { type: 'integer', minimum: 100, maximum: 600000 },
        maxDownloadBytes: { type: 'integer', minimum: 1024, maximum: 268435456 },
        downloadTimeoutMs: { type: 'integer', minimum: 100, maximum: 3600000 },
        downloadIdleMs: { type: 'integer', minimum: 100, maximum: 600000 },
      },
    },
    restore: restoreSchema,
    shutdownTimeoutMs: { type: 'integer', minimum: 100, maximum: 600000 },
    queue: {
      type: 'object',
      additionalProperties: false,
      properties: {
        enabled: { type: 'boolean' },
        maxQueued: { type: 'integer', minimum: 1, maximum: 1000000 },
        leaseMs: { type: 'integer', minimum: 2000, maximum: 3600000 },
        recheckMs: { type: 'integer', minimum: 10, maximum: 60000 },
        concurrency: { type: 'integer', minimum: 1, maximum: 256 },
      },
    },
    cluster: clusterConfigSchema,
    webhooks: { type: 'object' },
    metrics: {
      type: 'object',
      additionalProperties: false,
      properties: { token: { type: 'string', minLength: 16, description: 'Bearer token GET /metrics accepts besides the admin token.' } },
    },
    streams: {
      type: 'object',
      additionalProperties: false,
      properties: {
        retentionSeconds: { type: 'integer', minimum: 60, maximum: 31536000, description: 'How long the event log keeps events for stream clients that reconnect.' },
        heartbeatSeconds: { type: 'integer', minimum: 1, maximum: 3600 },
        maxPerInstance: { type: 'integer', minimum: 1, maximum: 1000000 },
        maxTotal: { type: 'integer', minimum: 1, maximum: 1000000 },
        bufferBytes: { type: 'integer', minimum: 1024, maximum: 268435456 },
      },
    },
    events: {
      type: 'object',
      additionalProperties: false,
      properties: {
        outageWaitSeconds: { type: 'integer', minimum: 1, maximum: 86400, description: 'How long events are retried while storage is unavailable, then dropped (logged, counted).' },
        maxBacklog: { type: 'integer', minimum: 100, maximum: 10000000, description: 'Events an instance may hold in memory while its storage is unavailable.' },
        maxBacklogBytes: { type: 'integer', minimum: 1048576, maximum: 4294967296, description: 'Bytes of events an instance may take in while its storage is unavailable.' },
      },
    },
    mcp: {
      type: 'object',
      additionalProperties: false,
      properties: {
        enabled: { type: 'boolean', description: 'Serve the MCP server at /mcp.' },
        maxSessions: { type: 'integer', minimum: 1, maximum: 100000, description: 'MCP sessions open at once on this server.' },
        maxSessionsPerInstance: { type: 'integer', minimum: 1, maximum: 100000, description: 'MCP sessions open at once per instance key.' },
        idleSeconds: { type: 'integer', minimum: 10, maximum: 86400, description: 'Seconds without a request or an open stream after which an MCP session is closed.' },
      },
    },
    plugins: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['package'],
        properties: {
          package: { type: 'string', minLength: 1 },
          options: { type: 'object' },
        },
      },
    },
  },
} as const;
