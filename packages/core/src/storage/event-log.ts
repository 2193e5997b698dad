import type { ChannelEvent } from '../channel/events.js';
import { encodeStored } from './codec.js';

/**
 * One entry of the durable event log: a channel event as the server's event bus processed it, kept
 * for the live event streams (`GET /{key}/events`, `GET /admin/events`) to replay to clients that
 * reconnect.
 */
export interface LoggedEvent {
  /**
   * The ChannelEvent's id: a ULID, so ids sort by the time the event was received, and one server
   * hands them out in increasing order. The log orders and pages by it.
   */
  id: string;
  /** Id of the instance the event belongs to. */
  instance: string;
  /** Event kind (the ChannelEvent's `type`: `message`, `message.status`, `qrcode`, …). */
  type: string;
  /** Unix ms the event was received: the time encoded in {@link id}. */
  at: number;
  /** The ChannelEvent itself, as JSON text (stored and answered as it is). */
  event: string;
}

/** The log entry of a handled event (what the server appends for it). */
export function loggedEventOf(event: ChannelEvent): LoggedEvent {
  return { id: event.id, instance: event.instance, type: event.type, at: event.receivedAt, event: encodeStored(event) };
}

/** What {@link EventLog.read} selects. */
export interface EventLogQuery {
  /** Only this instance's events; all instances' when absent. */
  instance?: string;
  /** Only events whose id sorts after this one (exclusive); from the oldest kept when absent. */
  after?: string;
  /** At most this many entries (≥ 1). */
  limit: number;
}

/**
 * The durable event log (a member of {@link Storage}): what the event streams replay from. The server
 * appends a handled event's entry in the same atomic write as the event's webhook and sink deliveries
 * (`DeliveryQueue.enqueue` with `events`), so an event is logged exactly when its deliveries are
 * queued: a channel replaying what a crash cut off (the sandbox's inbox) tells from the log whether an
 * event still has to be emitted. Entries are kept for a retention the server enforces with
 * {@link EventLog.purge}; readers page through them in id order.
 */
export interface EventLog {
  /**
   * Appends entries: readable once the promise resolves, durable once {@link Storage.flush} resolves
   * after it (back ends that commit each write are durable at once; a batching one commits with its
   * turn's other writes). The server tells stream clients of an event only once it is durable. An
   * entry whose id is already logged is ignored (a retried batch appends nothing twice). An empty
   * list is a no-op.
   */
  append(entries: LoggedEvent[]): Promise<void>;
  /**
   * Entries with an id greater than `after` (of one instance, or of all), in increasing id order,
   * at most `limit`. An `after` that names no logged entry still works as a position: ids compare as
   * strings.
   */
  read(query: EventLogQuery): Promise<LoggedEvent[]>;
  /** Deletes the entries received before `before` (Unix ms, exclusive). Answers how many went. */
  purge(before: number): Promise<number>;
  /** Deletes every entry of an instance (instance deletion). */
  clear(instance: string): Promise<void>;
}
