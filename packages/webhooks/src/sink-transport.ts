import { sinkTopic, type Delivery, type Sink, type SinkMessage } from '@parley/core';
import { attemptInTurn, type AttemptResult, type DeliveryTransport } from './delivery-transport.js';
import { instanceOfPartition, sinkOfTarget } from './sink-target.js';

/**
 * Sink attempts: publish the stored bodies through the sink the target names, a lane's batch at once
 * when the sink publishes batches (pipelined, confirmed in order), else one at a time; a confirm delivers.
 */
export class SinkTransport implements DeliveryTransport {
  readonly kind = 'sink';
  constructor(private readonly sinks: ReadonlyMap<string, Sink>) {}

  async attempt(deliveries: readonly Delivery[], signal: AbortSignal, mayStart: () => boolean): Promise<AttemptResult[]> {
    const name = sinkOfTarget(deliveries[0]!.url);
    const sink = this.sinks.get(name);
    // A sink removed from the configuration: kept queued on the schedule (it may come back), then dead.
    if (!sink) return [{ delivered: false, error: `sink "${name}" is not configured` }];
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    if (!sink.publishBatch) {
      return attemptInTurn(deliveries, signal, mayStart, async (delivery) => {
        await sink.publish(messageOf(delivery), signal);
        return { delivered: true, status: 0, responseTimeMs: elapsed() };
      });
    }
    const { confirmed, error } = await sink.publishBatch(deliveries.map(messageOf), signal);
    const results: AttemptResult[] = Array.from({ length: confirmed }, () => ({ delivered: true as const, status: 0, responseTimeMs: elapsed() }));
    if (confirmed < deliveries.length) results.push({ delivered: false, error: error?.message ?? 'not confirmed' });
    return results;
  }
}

/** The message of a sink delivery: the stored event id, not the delivery id (brokers and consumers de-duplicate by the event). */
function messageOf(delivery: Delivery): SinkMessage {
  const { field, event } = sinkTopic(delivery.eventType);
  return { id: delivery.eventId, instance: instanceOfPartition(delivery.instance), field, event, format: delivery.format, body: delivery.body };
}
