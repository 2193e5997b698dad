/**
 * @parley/sink-nats — publishes Parley's events to NATS JetStream: subjects
 * `parley.<instance id>.<field>.<event>` on a stream (default `PARLEY_EVENTS`, subjects `parley.>`)
 * created or checked at start-up, `Nats-Msg-Id` = the event id, acknowledged publishes. Options: see README.md.
 */
import { definePlugin, loadSinkTls, sinkCommonOptionProperties, type SinkCommonOptions } from '@parley/core';
import { NatsSink } from './nats.sink.js';

export { NatsSink, type NatsSinkSettings } from './nats.sink.js';

/** Options of the plugin (`plugins[].options` of the config file). */
export interface NatsSinkOptions extends SinkCommonOptions {
  /** Server URL(s) (`nats://host:4222`, comma-separated for several). Default: the `NATS_URL` environment variable. */
  url?: string;
  /** JetStream stream. Default `PARLEY_EVENTS`. */
  stream?: string;
  /** First subject token. Default `parley`. */
  subjectPrefix?: string;
  /** De-duplication window of a stream the sink creates, in ms. Default 120000 (JetStream's default). */
  duplicateWindowMs?: number;
  /** `max_age` of a stream the sink creates, in ms; 0 keeps messages until the stream's limits. Default 0. */
  maxAgeMs?: number;
}

/**
 * Server URLs and credentials: `NATS_USER` / `NATS_PASSWORD` or `NATS_TOKEN` when set, else the
 * user and password of the URL. Credentials never stay in the URLs (the client logs those).
 */
export function natsConnection(url: string, env: NodeJS.ProcessEnv = process.env): { servers: string[]; user?: string; pass?: string; token?: string } {
  let user: string | undefined;
  let pass: string | undefined;
  const servers = url.split(',').map((one) => {
    const u = new URL(one.trim());
    if (u.username) user ??= decodeURIComponent(u.username);
    if (u.password) pass ??= decodeURIComponent(u.password);
    return `${u.protocol}//${u.host}`;
  });
  if (env.NATS_USER) user = env.NATS_USER;
  if (env.NATS_PASSWORD) pass = env.NATS_PASSWORD;
  const token = env.NATS_TOKEN || undefined;
  return { servers, ...(user === undefined ? {} : { user }), ...(pass === undefined ? {} : { pass }), ...(token === undefined ? {} : { token }) };
}

export default definePlugin<NatsSinkOptions>({
  name: '@parley/sink-nats',
  kind: 'sink',
  provides: { sinks: ['nats'] },
  coreVersion: '^0.1.0',
  optionsSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      url: { type: 'string', pattern: '^(nats|tls)://' },
      stream: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,255}$' },
      subjectPrefix: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
      duplicateWindowMs: { type: 'integer', minimum: 100, maximum: 7 * 24 * 3_600_000 },
      maxAgeMs: { type: 'integer', minimum: 0 },
      ...sinkCommonOptionProperties,
    },
  },
  register({ options, sinks, logger }) {
    const url = options.url ?? process.env.NATS_URL;
    if (!url) throw new Error('@parley/sink-nats: set options.url or the NATS_URL environment variable');
    if (!/^(nats|tls):\/\//.test(url)) throw new Error('@parley/sink-nats: NATS_URL must start with nats:// or tls://');
    const tls = loadSinkTls(options.tls);
    sinks.add(new NatsSink({
      ...natsConnection(url), stream: options.stream ?? 'PARLEY_EVENTS', subjectPrefix: options.subjectPrefix ?? 'parley',
      duplicateWindowMs: options.duplicateWindowMs ?? 120_000, maxAgeMs: options.maxAgeMs ?? 0, ...(tls ? { tls } : {}),
      publishTimeoutMs: options.publishTimeoutMs ?? 10_000, connectTimeoutMs: options.connectTimeoutMs ?? 5_000,
    }, logger));
  },
});
