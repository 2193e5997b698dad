import { connect, type ChannelModel, type ConfirmChannel } from 'amqplib';
import { confirmedPrefix, ConnectedSink, withinTime, type Logger, type SinkBatchResult, type SinkMessage, type SinkTlsSettings } from '@parley/core';

/** Settings of {@link AmqpSink}, resolved from the plugin options and the environment. */
export interface AmqpSinkSettings {
  /** `amqp://` or `amqps://` URL, credentials included (never logged). */
  url: string;
  /** Durable topic exchange the sink declares and publishes to. */
  exchange: string;
  tls?: SinkTlsSettings;
  publishTimeoutMs: number;
  connectTimeoutMs: number;
  heartbeatSeconds: number;
}

/** One AMQP connection and its confirm channel. */
interface Link {
  model: ChannelModel;
  channel: ConfirmChannel;
}

/** Host and port of a URL, for messages (never its credentials). */
function where(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return 'the configured AMQP URL';
  }
}

/**
 * Publishes to RabbitMQ (AMQP 0-9-1) through one confirm channel: every message is persistent, goes to
 * a durable topic exchange under the routing key `<instance id>.<field>.<event>`, carries the event id
 * as `messageId`, and `publish` resolves only on the broker's publisher confirm. A lost connection (or
 * a confirm that does not come in time) drops the connection; the next publish connects again.
 */
export class AmqpSink extends ConnectedSink<Link> {
  constructor(private readonly settings: AmqpSinkSettings, private readonly logger: Logger) {
    super('amqp', 'AMQP', {
      open: () => this.open(),
      close: (link) => link.model.close(),
      failure: (err) => `cannot reach ${where(settings.url)}: ${err.message}`,
    }, settings.connectTimeoutMs);
  }

  /** Publishes every message on the confirm channel back to back, then awaits their confirms (which come in order). */
  async publishBatch(messages: SinkMessage[], signal: AbortSignal): Promise<SinkBatchResult> {
    const { exchange, publishTimeoutMs } = this.settings;
    const link = await withinTime(this.connection.get(), publishTimeoutMs, `no AMQP connection to ${where(this.settings.url)} within ${publishTimeoutMs} ms`, signal);
    const confirms = messages.map((message) => new Promise<void>((resolve, reject) => {
      link.channel.publish(exchange, `${message.instance}.${message.field}.${message.event}`, Buffer.from(message.body), {
        persistent: true, messageId: message.id, contentType: 'application/json', type: `${message.field}.${message.event}`,
        headers: { 'parley-instance': message.instance, 'parley-format': message.format },
      }, (err: unknown) => (err ? reject(err instanceof Error ? err : new Error(`publish refused: ${String(err)}`)) : resolve()));
    }));
    const result = await confirmedPrefix(confirms, publishTimeoutMs, `no publisher confirm within ${publishTimeoutMs} ms`, signal);
    // A confirm that does not come means a connection that hangs: its socket is destroyed, the next publish opens another.
    if (result.timedOut && !signal.aborted && this.connection.isCurrent(link)) {
      (link.model.connection as unknown as { stream?: { destroy(): void } }).stream?.destroy();
      this.lost(link, result.error!.message);
    }
    return { confirmed: result.confirmed, ...(result.error ? { error: result.error } : {}) };
  }

  private async open(): Promise<Link> {
    const { url, tls, connectTimeoutMs, heartbeatSeconds, exchange } = this.settings;
    const address = new URL(url);
    if (!address.searchParams.has('heartbeat')) address.searchParams.set('heartbeat', String(heartbeatSeconds));
    const connecting: Promise<ChannelModel> = connect(address.href, { timeout: connectTimeoutMs, ...tls });
    const model = await withinTime(connecting, connectTimeoutMs, `no AMQP handshake within ${connectTimeoutMs} ms`).catch((err: unknown) => {
      // A connection that completes after the time-out is closed at once, not leaked.
      connecting.then((late) => late.close().catch(() => undefined), () => undefined);
      throw err;
    });
    try {
      model.on('error', (err: Error) => this.logger.warn({ error: err.message }, 'AMQP connection error'));
      const channel = await withinTime(model.createConfirmChannel(), connectTimeoutMs, 'no AMQP channel in time');
      const link: Link = { model, channel };
      model.on('close', () => this.lost(link, 'connection closed'));
      channel.on('error', (err: Error) => this.logger.warn({ error: err.message }, 'AMQP channel error'));
      channel.on('close', () => this.lost(link, 'channel closed'));
      await withinTime(channel.assertExchange(exchange, 'topic', { durable: true }), connectTimeoutMs, `exchange ${exchange} not declared in time`);
      this.logger.info({ broker: where(url), exchange }, 'AMQP sink connected');
      return link;
    } catch (err) {
      void model.close().catch(() => undefined);
      throw err;
    }
  }

  private lost(link: Link, why: string): void {
    if (this.connection.lost(link, why)) this.logger.warn({ broker: where(this.settings.url), why }, 'AMQP sink disconnected; reconnecting');
  }
}
