import { MESSAGE_STATUS_RANK, restStatusOf, type DeliveryStatus } from '@parley/core';
import { BoundedCache } from '../util/bounded-cache.js';

/** Messages whose furthest status is remembered at once; the least recently reported go first. */
const REMEMBERED = 10_000;

/** The statuses receipts report (`sent` and `failed` are the server ack's); each goes as far as its REST status ranks. */
const FROM_RECEIPTS = new Set<DeliveryStatus>(['delivered', 'read', 'played']);

/**
 * The furthest status reported of each message the instance sent, per recipient: the message in a 1:1
 * chat, each member in a group. Every device of a recipient (the phone and each linked device) sends its own
 * delivery and read receipts (whatsmeow types.Receipt is per device; Baileys emits a `messages.update`, or in
 * a group a `message-receipt.update`, for each), and a device whose copy did not decrypt delivers after the
 * resend: the status moves once, on the first receipt that takes it further. `sent` and `failed` are not
 * ranked here (the server's ack says them once, ServerAcks).
 */
export class ReportedStatuses {
  private readonly furthest = new BoundedCache<number>({ max: REMEMBERED });

  /**
   * Whether `status` of `messageId` (for group member `participant`, in a group) takes it further than what was
   * reported; if so it is now the furthest.
   */
  advances(messageId: string, status: DeliveryStatus, participant?: string): boolean {
    if (!FROM_RECEIPTS.has(status)) return true;
    const rank = MESSAGE_STATUS_RANK[restStatusOf(status)];
    const key = participant ? `${messageId}\u0000${participant}` : messageId;
    if ((this.furthest.get(key) ?? -Infinity) >= rank) return false;
    this.furthest.set(key, rank);
    return true;
  }
}
