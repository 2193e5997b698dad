import { connect, headers, nanos, StorageType, type JetStreamClient, type NatsConnection } from 'nats';
import { confirmedPrefix, ConnectedSink, withinTime, type Logger, type SinkBatchResult, type SinkMessage, type SinkTlsSettings } from '@parley/core';

/** Settings of {@link NatsSink}, resolved from the plugin options and the environment. */
export interface NatsSinkSettings {
  /** Server URLs (`nats://host:4222`), without credentials. */
  servers: string[];
  user?: string;
  pass?: string;
  token?: string;
  /** JetStream stream the sink creates or checks at start-up. */
  stream: string;
  /** First subject token: subjects are `<prefix>.<instance id>.<field>.<event>`, the stream's subjects `<prefix>.>`. */
  subjectPrefix: string;
  /** The stream's de-duplication window for a stream the sink creates, in ms. */
  duplicateWindowMs: number;
  /** The stream's `max_age` for a stream the sink creates, in ms (0: kept until limits say otherwise). */
  maxAgeMs: number;
  tls?: SinkTlsSettings;
  publishTimeoutMs: number;
  connectTimeoutMs: number;
}

/**
 * Publishes to NATS JetStream: subjects `<prefix>.<instance id>.<field>.<event>` on a stream (created with
 * subjects `<prefix>.>` when missing, checked when present), the event id as `Nats-Msg-Id` so JetStream
 * drops a re-send within the stream's duplicate window, and `publish` resolves only on the JetStream
 * ack. The client reconnects by itself; a publish that gets no ack in time forces a reconnect.
 */
/** One NATS connection and its JetStream client. */
interface Link {
  nc: NatsConnection;
  js: JetStreamClient;
}

/**
 * The server's id of the client's current connection (a new one after each reconnect), undefined while
 * the client is (re)connecting.
 */
function connectionId(nc: NatsConnection): string | undefined {
  const info = nc.info;
  return info ? `${info.server_id}/${info.client_id}` : undefined;
}

export class NatsSink extends ConnectedSink<Link> {
  constructor(private readonly settings: NatsSinkSettings, private readonly logger: Logger) {
    super('nats', 'NATS', {
      open: () => this.open(),
      close: (link) => link.nc.close(),
      failure: (err) => `cannot use NATS at ${settings.servers.join(', ')}: ${err.message}`,
    }, settings.connectTimeoutMs);
  }

  /** Sends every message as an asynchronous JetStream publish at once, then awaits the acks in order. */
  async publishBatch(messages: SinkMessage[], signal: AbortSignal): Promise<SinkBatchResult> {
    const { publishTimeoutMs, stream, subjectPrefix } = this.settings;
    const { nc, js } = await withinTime(this.connection.get(), publishTimeoutMs, `no NATS connection within ${publishTimeoutMs} ms`, signal);
    const sentOn = connectionId(nc);
    const acks = messages.map((message) => {
      const h = headers();
      h.set('Content-Type', 'application/json');
      h.set('Parley-Format', message.format);
      const subject = `${subjectPrefix}.${message.instance}.${message.field}.${message.event}`;
      return js.publish(subject, Buffer.from(message.body), { msgID: message.id, timeout: publishTimeoutMs, expect: { streamName: stream }, headers: h });
    });
    const result = await confirmedPrefix(acks, publishTimeoutMs + 1_000, `no JetStream ack within ${publishTimeoutMs} ms`, signal);
    // No ack on the connection the batch went out on, still the one in use: it hangs. Start a new one.
    // A batch sent while the client was reconnecting, or on a connection it has replaced since, lost its
    // acks with that connection: dropping the new one would only lose the acks of the batches sent on it
    // (after an outage, each such time-out dropped the next connection again).
    if (result.error && !signal.aborted && !nc.isClosed() && sentOn !== undefined && connectionId(nc) === sentOn) nc.reconnect().catch(() => undefined);
    return { confirmed: result.confirmed, ...(result.error ? { error: result.error } : {}) };
  }

  private async open(): Promise<Link> {
    const { servers, user, pass, token, tls, connectTimeoutMs } = this.settings;
    const nc = await connect({
      servers, timeout: connectTimeoutMs, name: 'parley-sink', reconnect: true, maxReconnectAttempts: -1, reconnectTimeWait: 1_000,
      pingInterval: 10_000, maxPingOut: 2,
      ...(user === undefined ? {} : { user }), ...(pass === undefined ? {} : { pass }), ...(token === undefined ? {} : { token }),
      ...(tls ? { tls: { ...(tls.ca ? { ca: tls.ca.toString() } : {}), ...(tls.cert ? { cert: tls.cert.toString() } : {}), ...(tls.key ? { key: tls.key.toString() } : {}) } } : {}),
    });
    try {
      await this.ensureStream(nc);
    } catch (err) {
      await nc.close().catch(() => undefined);
      throw err;
    }
    const link: Link = { nc, js: nc.jetstream({ timeout: this.settings.publishTimeoutMs }) };
    this.watch(link);
    this.logger.info({ servers, stream: this.settings.stream }, 'NATS sink connected');
    return link;
  }
  /** Creates the stream with subjects `<prefix>.>`, or checks that an existing one captures them. */
  private async ensureStream(nc: NatsConnection): Promise<void> {
    const { stream, subjectPrefix, duplicateWindowMs, maxAgeMs, connectTimeoutMs } = this.settings;
    const subject = `${subjectPrefix}.>`;
    const jsm = await nc.jetstreamManager({ timeout: connectTimeoutMs });
    const info = await jsm.streams.info(stream).catch((err: unknown) => {
      if (/stream not found/i.test((err as Error).message)) return null;
      throw err;
    });
    if (info) {
      if (!info.config.subjects?.includes(subject)) {
        throw new Error(`stream ${stream} exists with subjects [${(info.config.subjects ?? []).join(', ')}], which do not include ${subject}`);
      }
      return;
    }
    await jsm.streams.add({
      name: stream, subjects: [subject], storage: StorageType.File, duplicate_window: nanos(duplicateWindowMs), max_age: nanos(maxAgeMs),
    });
    this.logger.info({ stream, subject }, 'JetStream stream created');
  }

  /** Follows the client's connection status for {@link health}, until it closes. */
  private watch(link: Link): void {
    void (async () => {
      for await (const status of link.nc.status()) {
        if (status.type === 'disconnect') this.connection.report(link, { ready: false, detail: 'disconnected; reconnecting' });
        if (status.type === 'reconnect') this.connection.report(link, { ready: true });
      }
    })().catch(() => undefined);
    link.nc.closed().then(() => this.connection.lost(link, 'connection closed'), () => undefined);
  }
}
