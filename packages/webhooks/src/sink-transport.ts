import { sinkTopic, type Delivery, type Sink } from '@parley/core';
import type { AttemptResult, DeliveryTransport } from './delivery-transport.js';
import { instanceOfPartition, sinkOfTarget } from './sink-target.js';

/** Sink attempts: publish the stored body through the sink the target names; its confirm delivers it. */
export class SinkTransport implements DeliveryTransport {
  readonly kind = 'sink';
  constructor(private readonly sinks: ReadonlyMap<string, Sink>) {}

  async attempt(delivery: Delivery, signal: AbortSignal): Promise<AttemptResult> {
    const name = sinkOfTarget(delivery.url);
    const sink = this.sinks.get(name);
    // A sink removed from the configuration: kept queued on the schedule (it may come back), then dead.
    if (!sink) return { delivered: false, error: `sink "${name}" is not configured` };
    const started = performance.now();
    const { field, event } = sinkTopic(delivery.eventType);
    // The stored event id, not the delivery id: brokers and consumers de-duplicate by the event.
    await sink.publish({
      id: delivery.eventId, instance: instanceOfPartition(delivery.instance), field, event, format: delivery.format, body: delivery.body,
    }, signal);
    return { delivered: true, status: 0, responseTimeMs: Math.round(performance.now() - started) };
  }
}
