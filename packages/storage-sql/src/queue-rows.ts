import type { Delivery, Outbound } from '@parley/core';

/** A row of the `outbound` table (the outbound queue), as both SQL back ends store it. */
export interface OutboundRow {
  [column: string]: unknown;
  seq: number;
  instance: string;
  id: string;
  lane: string;
  ord: number;
  due_at: number;
  created_at: number;
  attempts: number;
  last_error: string | null;
  lease_until: number | null;
  payload: string;
}

/** The queue entry an `outbound` row holds; absent columns (`NULL`) become absent members. */
export function outboundOf(row: OutboundRow): Outbound {
  return {
    id: row.id, instance: row.instance, lane: row.lane, dueAt: row.due_at, createdAt: row.created_at, payload: row.payload,
    order: row.ord, attempts: row.attempts,
    ...(row.lease_until === null ? {} : { leasedUntil: row.lease_until }),
    ...(row.last_error === null ? {} : { lastError: row.last_error }),
  };
}

/** A row of the `deliveries` table (the webhook delivery queue and its dead letters). */
export interface DeliveryRow {
  [column: string]: unknown;
  seq: number;
  id: string;
  instance: string;
  url: string;
  format: string;
  event_id: string;
  event_type: string;
  body: string;
  created_at: number;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  last_status: number | null;
  lease_until: number | null;
  dead_at: number | null;
}

/** The delivery a `deliveries` row holds; absent columns (`NULL`) become absent members. */
export function deliveryOf(row: DeliveryRow): Delivery {
  return {
    id: row.id, instance: row.instance, url: row.url, format: row.format, eventId: row.event_id, eventType: row.event_type,
    body: row.body, createdAt: row.created_at, attempts: row.attempts, nextAttemptAt: row.next_attempt_at,
    ...(row.last_error === null ? {} : { lastError: row.last_error }),
    ...(row.last_status === null ? {} : { lastStatus: row.last_status }),
  };
}
