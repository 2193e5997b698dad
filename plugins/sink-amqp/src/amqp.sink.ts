import { connect, type ChannelModel, type ConfirmChannel } from 'amqplib';
import { withinTime, type Logger, type Sink, type SinkHealth, type SinkMessage, type SinkTlsSettings } from '@parley/core';

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
export class AmqpSink implements Sink {
  readonly name = 'amqp';
  private channel: Promise<ConfirmChannel> | null = null;
  private model: ChannelModel | null = null;
  private state: SinkHealth = { ready: false, detail: 'not connected yet' };
  private stopped = false;

  constructor(private readonly settings: AmqpSinkSettings, private readonly logger: Logger) {}

  async start(): Promise<void> {
    await this.connected();
  }

  async publish(message: SinkMessage, signal: AbortSignal): Promise<void> {
    const { exchange, publishTimeoutMs } = this.settings;
    const channel = await withinTime(this.connected(), publishTimeoutMs, `no AMQP connection to ${where(this.settings.url)} within ${publishTimeoutMs} ms`, signal);
    const model = this.model;
    const confirmed = new Promise<void>((resolve, reject) => {
      channel.publish(exchange, `${message.instance}.${message.field}.${message.event}`, Buffer.from(message.body), {
        persistent: true, messageId: message.id, contentType: 'application/json', type: `${message.field}.${message.event}`,
        headers: { 'parley-instance': message.instance, 'parley-format': message.format },
      }, (err: unknown) => (err ? reject(err instanceof Error ? err : new Error(`publish refused: ${String(err)}`)) : resolve()));
    });
    try {
      await withinTime(confirmed, publishTimeoutMs, `no publisher confirm within ${publishTimeoutMs} ms`, signal);
    } catch (err) {
      // A confirm that does not come means a connection that hangs: start afresh on the next publish.
      if (!signal.aborted && model) this.drop(model, (err as Error).message);
      throw err;
    }
  }

  health(): SinkHealth {
    return { ...this.state };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const model = this.model;
    this.model = null;
    this.channel = null;
    this.state = { ready: false, detail: 'stopped' };
    if (model) await withinTime(model.close(), this.settings.connectTimeoutMs, 'close timed out').catch(() => undefined);
  }

  /** The open confirm channel, connecting (and declaring the exchange) when there is none. */
  private connected(): Promise<ConfirmChannel> {
    if (this.stopped) return Promise.reject(new Error('the AMQP sink is stopped'));
    this.channel ??= this.open().catch((err: unknown) => {
      this.channel = null;
      this.state = { ready: false, detail: `cannot reach ${where(this.settings.url)}: ${(err as Error).message}` };
      throw err;
    });
    return this.channel;
  }

  private async open(): Promise<ConfirmChannel> {
    const { url, tls, connectTimeoutMs, heartbeatSeconds, exchange } = this.settings;
    const address = new URL(url);
    if (!address.searchParams.has('heartbeat')) address.searchParams.set('heartbeat', String(heartbeatSeconds));
    const connecting: Promise<ChannelModel> = connect(address.href, { timeout: connectTimeoutMs, ...tls });
    const model = await withinTime(connecting, connectTimeoutMs, `no AMQP handshake within ${connectTimeoutMs} ms`).catch((err: unknown) => {
      // A connection that completes after the time-out is closed at once, not leaked.
      connecting.then((late) => late.close().catch(() => undefined), () => undefined);
      throw err;
    });
    if (this.stopped) {
      await model.close().catch(() => undefined);
      throw new Error('the AMQP sink is stopped');
    }
    this.model = model;
    model.on('error', (err: Error) => this.logger.warn({ error: err.message }, 'AMQP connection error'));
    model.on('close', () => this.lost(model, 'connection closed'));
    const channel = await withinTime(model.createConfirmChannel(), connectTimeoutMs, 'no AMQP channel in time');
    channel.on('error', (err: Error) => this.logger.warn({ error: err.message }, 'AMQP channel error'));
    channel.on('close', () => this.lost(model, 'channel closed'));
    await withinTime(channel.assertExchange(exchange, 'topic', { durable: true }), connectTimeoutMs, `exchange ${exchange} not declared in time`);
    this.state = { ready: true };
    this.logger.info({ broker: where(url), exchange }, 'AMQP sink connected');
    return channel;
  }

  /** Forgets a connection that closed, so the next publish opens a new one. */
  private lost(model: ChannelModel, why: string): void {
    if (this.model !== model) return;
    this.model = null;
    this.channel = null;
    if (!this.stopped) {
      this.state = { ready: false, detail: why };
      this.logger.warn({ broker: where(this.settings.url), why }, 'AMQP sink disconnected; reconnecting on the next publish');
    }
    void model.close().catch(() => undefined);
  }

  /** Gives up on a connection (a hanging broker): its socket destroyed, closed in the background. */
  private drop(model: ChannelModel, why: string): void {
    if (this.model !== model) return;
    (model.connection as unknown as { stream?: { destroy(): void } }).stream?.destroy();
    this.lost(model, why);
  }
}
