import type { InstanceRecord } from '../domain/instance.js';
import { MESSAGE_STATUS_RANK, type MessageStatus } from '../domain/message.js';
import type { Chat, Contact, ContactChange } from '../domain/resources.js';
import type { WebhookStats } from './delivery-queue.js';

/**
 * Write rules every storage back end applies the same way, so that a record reads identically from
 * memory, SQLite, Redis or MongoDB.
 */

/** Copies the fields of `patch` whose value is not undefined: an absent field is "not given". */
function given<T extends object>(target: T, patch: Partial<T>): T {
  for (const [field, value] of Object.entries(patch)) {
    if (value !== undefined) (target as Record<string, unknown>)[field] = value;
  }
  return target;
}

/**
 * {@link ChatRepository.upsert}: the given fields win, undefined ones are ignored; a new chat starts as
 * `{ id, name: id, timestamp: 0, unreadCount: 0 }`.
 */
export function mergeChat(current: Chat | null, patch: Partial<Chat> & { id: string }): Chat {
  return given({ ...(current ?? { id: patch.id, name: patch.id, timestamp: 0, unreadCount: 0 }) }, patch);
}

/**
 * {@link ContactRepository.upsert}: like {@link mergeChat}, a new contact starts as `{ id, name: '', notify: '' }`;
 * `imgUrl: null` removes the picture URL.
 */
export function mergeContact(current: Contact | null, patch: ContactChange): Contact {
  const { imgUrl, ...rest } = patch;
  const merged = given({ ...(current ?? { id: patch.id, name: '', notify: '' }) }, rest);
  if (imgUrl === null) delete merged.imgUrl;
  else if (imgUrl !== undefined) merged.imgUrl = imgUrl;
  return merged;
}

/**
 * {@link InstanceRepository.update}: a shallow merge in which an undefined value removes the field
 * (how `proxy` or `mongodb` are detached); the id never changes.
 */
export function mergeInstance(current: InstanceRecord, patch: Partial<Omit<InstanceRecord, 'id'>>): InstanceRecord {
  const next: Record<string, unknown> = { ...current, ...patch, id: current.id };
  for (const [field, value] of Object.entries(next)) if (value === undefined) delete next[field];
  return next as unknown as InstanceRecord;
}

/** {@link MessageRepository.setStatus}: true when `next` replaces `current` (forward by rank; `ERROR` always). */
export function statusAdvances(current: MessageStatus, next: MessageStatus): boolean {
  return next === 'ERROR' || MESSAGE_STATUS_RANK[next] > MESSAGE_STATUS_RANK[current];
}

/** {@link WebhookStats.avgResponseTime} from a sum and a count of response times (0 without answers). */
export function averageResponseTime(sumMs: number, count: number): number {
  return count === 0 ? 0 : Math.round(sumMs / count);
}

/** The delivery counters a back end keeps per instance, from which {@link webhookStatsOf} answers {@link WebhookStats}. */
export interface DeliveryCounters {
  sent: number;
  failed: number;
  /** Sum of the response times of answered deliveries, in ms. */
  responseTimeSum: number;
  /** Count of answered deliveries. */
  responses: number;
}

/** {@link WebhookStats} of an instance from its counters (none kept yet: all zero) and its count of pending deliveries. */
export function webhookStatsOf(counters: DeliveryCounters | null | undefined, pending: number): WebhookStats {
  return {
    totalSent: counters?.sent ?? 0,
    totalFailed: counters?.failed ?? 0,
    totalPending: pending,
    avgResponseTime: averageResponseTime(counters?.responseTimeSum ?? 0, counters?.responses ?? 0),
  };
}
