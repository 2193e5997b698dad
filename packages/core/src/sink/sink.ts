import type { ChannelEventType } from '../channel/events.js';

/**
 * One event as a sink publishes it: the body one format rendered, with where it goes. The host builds
 * it from the durable outbox, so the same event always yields the same message (the same `id`).
 */
export interface SinkMessage {
  /**
   * The stable event id. It travels as the broker's message id (AMQP `messageId`, NATS `Nats-Msg-Id`)
   * and is the same on every retry and after a crash, so consumers (or the broker) can drop re-sends.
   */
  id: string;
  /** Public instance id (`ins_…`); never the secret key. */
  instance: string;
  /** Topic family of the event (`messages`, `connection`, …): see {@link sinkTopic}. */
  field: string;
  /** Event kind as a topic token (`message`, `message-status`, …): see {@link sinkTopic}. */
  event: string;
  /** Webhook format that rendered `body` (`native`, `meta`, or a plugin's format). */
  format: string;
  /** The exact JSON to publish. */
  body: string;
}

/** Whether a sink can publish now; `detail` says why not (never a credential). */
export interface SinkHealth {
  ready: boolean;
  detail?: string;
}

/** How a {@link Sink.publishBatch} ended: the first `confirmed` messages were taken; `error` says why the next was not. */
export interface SinkBatchResult {
  confirmed: number;
  /** Present when `confirmed` is below the number of messages. */
  error?: Error;
}

/**
 * An event sink: publishes Parley's events to a message broker. A sink plugin adds one with
 * `sinks.add(sink)`; instances enable it with `PUT /{key}/instance/sinks/{name}`. The host owns
 * delivery: every event is first written to the durable outbox, then handed to {@link publishBatch}
 * (or {@link publish}) by the shared delivery worker — one batch of consecutive events at a time per
 * instance and sink, so order is kept — and marked done only once the broker confirmed it; a rejection
 * is retried on the webhook retry schedule and then dead-lettered. Sinks therefore hold no queue of
 * their own.
 */
export interface Sink {
  /** Sink name, a lower-case id (`amqp`, `nats`, `kafka`): the `{name}` of the API. */
  readonly name: string;
  /**
   * Connects and declares or checks the sink's topology (exchange, stream). Rejects with an error that
   * says what is wrong (unreachable broker, a stream with other subjects); the host then logs it,
   * reports the sink not ready and keeps events queued — {@link publish} must connect on its own later.
   */
  start(): Promise<void>;
  /**
   * Publishes one message and resolves only once the broker has taken responsibility for it (AMQP
   * publisher confirm, JetStream ack). Rejects on a refusal, a lost connection or when it could not
   * publish within its own time bound; it must not hang forever. Called concurrently for different
   * instances; the host never calls it twice at once for one instance.
   */
  publish(message: SinkMessage, signal: AbortSignal): Promise<void>;
  /**
   * Optional: publishes consecutive messages of one instance, in order, pipelined (all sent, then the
   * confirms awaited), within the same time bound as one {@link publish}. Answers how many leading
   * messages the broker confirmed; the host books those as delivered, the first unconfirmed one as a
   * failed attempt and the rest as not attempted (sent again after it). It may instead reject (no
   * connection at all): the host books that as the first message failing. A sink without it gets one
   * {@link publish} at a time.
   */
  publishBatch?(messages: SinkMessage[], signal: AbortSignal): Promise<SinkBatchResult>;
  /**
   * Optional: calls `listener` whenever the sink is connected again after it lost its broker, so the
   * host sends what waited for the broker at once rather than at its next retry time.
   */
  onReconnect?(listener: () => void): void;
  /** Answers at once, from what the sink last saw (for readiness and the API). */
  health(): SinkHealth;
  /** Closes connections. Idempotent; `publish` rejects afterwards. */
  stop(): Promise<void>;
}

/** A sink's per-instance settings (`PUT /{key}/instance/sinks/{name}`). */
export interface SinkSettings {
  /** Events go to the sink only while true. */
  enabled: boolean;
  /** Webhook format that renders the bodies (`native`, `meta`, or any registered format). */
  format: string;
  /** Event kinds to publish ({@link SINK_EVENT_KINDS}); null publishes every kind the format carries. */
  events: ChannelEventType[] | null;
}

/**
 * Topic family of each event kind: the meta format's `field` where the spec names one (6.2), the
 * kind's own family otherwise. Exhaustive over the event union, so a new kind must pick one.
 */
const FIELDS: Record<ChannelEventType, string> = {
  message: 'messages',
  'message.status': 'messages',
  'message.delete': 'messages',
  presence: 'presence',
  connection: 'connection',
  qrcode: 'qrcode',
  call: 'call',
  'group.participants': 'groups',
  'group.update': 'groups',
  health: 'health',
  history: 'history',
  'chats.upsert': 'chats',
  'chats.delete': 'chats',
  'contacts.upsert': 'contacts',
  'contacts.delete': 'contacts',
};

/** Every event kind a sink setting's `events` may name. */
export const SINK_EVENT_KINDS: readonly ChannelEventType[] = Object.freeze(Object.keys(FIELDS) as ChannelEventType[]);

/**
 * The topic of an event kind: `field` (see {@link FIELDS}) and `event`, the kind with its dots turned
 * into dashes so that it is one token of an AMQP routing key or a NATS subject
 * (`message.status` → `message-status`). Sinks publish under `<instance id>.<field>.<event>`.
 */
export function sinkTopic(eventType: string): { field: string; event: string } {
  return { field: FIELDS[eventType as ChannelEventType] ?? 'other', event: eventType.replace(/\./g, '-') };
}
