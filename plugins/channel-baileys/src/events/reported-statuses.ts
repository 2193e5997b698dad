import type { DeliveryStatus } from '@parley/core';
import { BoundedCache } from '../util/bounded-cache.js';

/** Messages whose furthest status is remembered at once; the least recently reported go first. */
const REMEMBERED = 10_000;

/** How far each status of a one-to-one message goes: a later receipt reports only what goes further. */
const RANK: Partial<Record<DeliveryStatus, number>> = { delivered: 1, read: 2, played: 3 };

/**
 * The furthest status reported of each one-to-one message the instance sent. Every device of the recipient
 * (the phone and each linked device) sends its own delivery and read receipts (whatsmeow types.Receipt is per
 * device; Baileys emits a `messages.update` for each), and a device whose copy did not decrypt delivers after
 * the resend: the message's status moves once, on the first receipt that takes it further. `sent` and
 * `failed` are not ranked here (the server's ack says them once, ServerAcks).
 */
export class ReportedStatuses {
  private readonly furthest = new BoundedCache<number>({ max: REMEMBERED });

  /** Whether `status` of `messageId` takes it further than what was reported; if so it is now the furthest. */
  advances(messageId: string, status: DeliveryStatus): boolean {
    const rank = RANK[status];
    if (rank === undefined) return true;
    if ((this.furthest.get(messageId) ?? 0) >= rank) return false;
    this.furthest.set(messageId, rank);
    return true;
  }
}
