/**
 * How sink deliveries sit in the shared outbox (`storage.deliveries`). A delivery's `url` is its
 * target, `sink:<name>`; its `instance` is the outbox partition `<instance id>~<name>`, so every sink of
 * an instance has its own lane (order per instance and sink), its own statistics and its own dead
 * letters, apart from the instance's webhooks — with no change to the queue contract or its back ends.
 */
const SCHEME = 'sink:';
const SEPARATOR = '~';

/** The outbox target (`url`) of a sink. */
export function sinkTarget(sink: string): string {
  return `${SCHEME}${sink}`;
}

/** Whether a delivery's `url` is a sink target. */
export function isSinkTarget(url: string): boolean {
  return url.startsWith(SCHEME);
}

/** The sink name of a sink target. */
export function sinkOfTarget(url: string): string {
  return url.slice(SCHEME.length);
}

/** The outbox partition (`instance`) of an instance's deliveries to one sink. */
export function sinkPartition(instanceId: string, sink: string): string {
  return `${instanceId}${SEPARATOR}${sink}`;
}

/** The instance id of a sink partition. */
export function instanceOfPartition(partition: string): string {
  const at = partition.lastIndexOf(SEPARATOR);
  return at < 0 ? partition : partition.slice(0, at);
}

/** The delivery id of an event in a sink: one per event and sink, stable across retries and re-enqueues. */
export function sinkDeliveryId(eventId: string, sink: string): string {
  return `snk_${eventId}_${sink}`;
}
