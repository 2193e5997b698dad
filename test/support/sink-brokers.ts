import { TcpProxy } from '@parley/testkit';
import { amqpReader, deleteAmqpExchange } from '@parley/sink-amqp/testing';
import { deleteNatsStream, natsReader } from '@parley/sink-nats/testing';
import type { PluginEntry } from '@parley/server';

/** A message a broker consumer got: `topic` is `<instance id>.<field>.<event>`. */
export interface BrokerMessage {
  id: string;
  topic: string;
  body: string;
}

/**
 * The machine's RabbitMQ and NATS behind TCP proxies this test controls, with an exchange, a stream and
 * a subject prefix of this run only (deleted by {@link close}); readers consume what the sinks publish.
 */
export class SinkBrokers {
  readonly run = `e2e${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  readonly amqpProxy: TcpProxy;
  readonly natsProxy: TcpProxy;
  readonly exchange = `parley.e2e.${this.run}`;
  readonly stream = `PARLEY_E2E_${this.run}`;
  readonly prefix = `parleye2e_${this.run}`;
  private readers: { messages(): BrokerMessage[]; close(): Promise<void> }[] = [];
  amqp!: { messages(): BrokerMessage[] };
  nats!: { messages(): BrokerMessage[] };

  constructor(readonly amqpUrl: string, readonly natsUrl: string) {
    const a = new URL(amqpUrl);
    const n = new URL(natsUrl);
    this.amqpProxy = new TcpProxy(a.hostname, Number(a.port || 5672));
    this.natsProxy = new TcpProxy(n.hostname, Number(n.port || 4222));
  }

  /** Starts the proxies (unless `proxiesUp` is false: a broker unreachable at start-up) and the readers. */
  async start(proxiesUp = true): Promise<void> {
    if (proxiesUp) await Promise.all([this.amqpProxy.start(), this.natsProxy.start()]);
    const amqp = await amqpReader(this.amqpUrl, this.exchange);
    const nats = await natsReader(this.natsUrl, this.stream, this.prefix);
    this.readers.push(amqp, nats);
    this.amqp = amqp;
    this.nats = nats;
  }

  /** The sink plugin entries, reaching the brokers through the proxies, with short time-outs. */
  plugins(): PluginEntry[] {
    const viaProxy = (url: string, port: number) => {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.href.replace(/\/$/, '');
    };
    return [
      { package: '@parley/sink-amqp', options: { url: viaProxy(this.amqpUrl, this.amqpProxy.port), exchange: this.exchange, publishTimeoutMs: 1_000, connectTimeoutMs: 1_000, heartbeatSeconds: 5 } },
      { package: '@parley/sink-nats', options: { url: viaProxy(this.natsUrl, this.natsProxy.port), stream: this.stream, subjectPrefix: this.prefix, publishTimeoutMs: 1_000, connectTimeoutMs: 1_000 } },
    ];
  }

  /** Cuts both brokers off (resets), then answers nothing (silence) for `silentMs`, then restores them. */
  async outage(resetMs: number, silentMs: number): Promise<void> {
    await Promise.all([this.amqpProxy.reset(), this.natsProxy.reset()]);
    await new Promise((r) => setTimeout(r, resetMs));
    await Promise.all([this.amqpProxy.silence(), this.natsProxy.silence()]);
    await new Promise((r) => setTimeout(r, silentMs));
    await Promise.all([this.amqpProxy.restore(), this.natsProxy.restore()]);
  }

  /** Holds back the brokers' answers (confirms, acks) on open connections: they store what Parley never hears about. */
  holdAnswers(): void {
    this.amqpProxy.holdAnswers();
    this.natsProxy.holdAnswers();
  }

  async close(): Promise<void> {
    await Promise.all(this.readers.map((r) => r.close().catch(() => undefined)));
    await Promise.all([this.amqpProxy.cut(), this.natsProxy.cut()]);
    await deleteAmqpExchange(this.amqpUrl, this.exchange).catch(() => undefined);
    await deleteNatsStream(this.natsUrl, this.stream);
  }
}

/** Ids of the messages of one instance in first-arrival order, and how often each came. */
export function arrivals(messages: BrokerMessage[], instanceId: string): { ids: string[]; copies: Map<string, number> } {
  const copies = new Map<string, number>();
  for (const m of messages) if (m.topic.startsWith(`${instanceId}.`)) copies.set(m.id, (copies.get(m.id) ?? 0) + 1);
  return { ids: [...copies.keys()], copies };
}
