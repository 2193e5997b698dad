/**
 * @parley/sink-amqp — publishes Parley's events to RabbitMQ: a durable topic exchange (default
 * `parley.events`), routing key `<instance id>.<field>.<event>`, persistent messages with the event id
 * as `messageId`, publisher confirms. Options: see README.md.
 */
import { definePlugin, loadSinkTls, sinkCommonOptionProperties, type SinkCommonOptions } from '@parley/core';
import { AmqpSink } from './amqp.sink.js';

export { AmqpSink, type AmqpSinkSettings } from './amqp.sink.js';

/** Options of the plugin (`plugins[].options` of the config file). */
export interface AmqpSinkOptions extends SinkCommonOptions {
  /** Broker URL (`amqp://host:5672/vhost`, `amqps://…`). Default: the `AMQP_URL` environment variable. */
  url?: string;
  /** Durable topic exchange to publish to. Default `parley.events`. */
  exchange?: string;
  /** AMQP heartbeat in seconds (0 turns it off). Default 30. */
  heartbeatSeconds?: number;
}

/**
 * The broker URL with the credentials of `AMQP_USERNAME` / `AMQP_PASSWORD` when they are set (they
 * override the URL's own), so secrets can stay out of the config file.
 */
export function amqpUrl(url: string, env: NodeJS.ProcessEnv = process.env): string {
  if (!env.AMQP_USERNAME && !env.AMQP_PASSWORD) return url;
  const u = new URL(url);
  if (env.AMQP_USERNAME) u.username = encodeURIComponent(env.AMQP_USERNAME);
  if (env.AMQP_PASSWORD) u.password = encodeURIComponent(env.AMQP_PASSWORD);
  return u.href;
}

export default definePlugin<AmqpSinkOptions>({
  name: '@parley/sink-amqp',
  kind: 'sink',
  provides: { sinks: ['amqp'] },
  coreVersion: '^0.1.0',
  optionsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      url: { type: 'string', pattern: '^amqps?://' },
      exchange: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9_.:-]+$' },
      heartbeatSeconds: { type: 'integer', minimum: 0, maximum: 3600 },
      ...sinkCommonOptionProperties,
    },
  },
  register({ options, sinks, logger }) {
    const url = options.url ?? process.env.AMQP_URL;
    if (!url) throw new Error('@parley/sink-amqp: set options.url or the AMQP_URL environment variable');
    if (!/^amqps?:\/\//.test(url)) throw new Error('@parley/sink-amqp: AMQP_URL must start with amqp:// or amqps://');
    const tls = loadSinkTls(options.tls);
    sinks.add(new AmqpSink({
      url: amqpUrl(url), exchange: options.exchange ?? 'parley.events', ...(tls ? { tls } : {}),
      publishTimeoutMs: options.publishTimeoutMs ?? 10_000, connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
      heartbeatSeconds: options.heartbeatSeconds ?? 30,
    }, logger));
  },
});
