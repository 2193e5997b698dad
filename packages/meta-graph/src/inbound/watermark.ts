import {
  MESSAGE_STATUS_RANK, restStatusOf, type ChannelEventPayload, type ChannelName, type MessageRecord, type MessageRepository,
} from '@parley/core';

/** A Messenger receipt that names no message: everything the account sent up to `watermarkMs` is covered. */
export interface WatermarkReceipt {
  status: 'read' | 'delivered';
  /** The user's PSID: the chat. */
  chatJid: string;
  /** Unix milliseconds. */
  watermarkMs: number;
  /** Unix seconds of the receipt. */
  timestamp: number;
}

const PAGE_SIZE = 100;
/** How far back one receipt looks; older unacknowledged messages were covered by earlier receipts. */
const MAX_PAGES = 5;

/**
 * The statuses a watermark receipt gives the account's own stored messages of that chat: one per
 * message sent at or before the watermark whose status it moves forward (Meta: "all messages that
 * were sent before or at this timestamp were read"), so they move like WhatsApp receipts do, with a
 * status webhook each. Records carry seconds, so a message sent within the watermark's second counts
 * as covered. The scan (newest first) stops at the first covered message already at that status:
 * older ones were acknowledged by an earlier receipt.
 */
export async function watermarkStatuses(
  messages: MessageRepository, instanceId: string, channel: ChannelName, receipt: WatermarkReceipt,
): Promise<ChannelEventPayload[]> {
  const target = MESSAGE_STATUS_RANK[restStatusOf(receipt.status)];
  const limitSeconds = Math.floor(receipt.watermarkMs / 1000);
  const covered: MessageRecord[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const { items: data } = await messages.listByChat(instanceId, receipt.chatJid, { page, limit: PAGE_SIZE });
    for (const record of data) {
      if (!record.key.fromMe || (record.provider !== undefined && record.provider !== channel)) continue;
      if (Number(record.messageTimestamp) > limitSeconds || record.status === 'ERROR') continue;
      if (MESSAGE_STATUS_RANK[record.status] >= target) return statuses(covered, receipt);
      covered.push(record);
    }
    if (data.length < PAGE_SIZE) break;
  }
  return statuses(covered, receipt);
}

function statuses(records: MessageRecord[], receipt: WatermarkReceipt): ChannelEventPayload[] {
  // Oldest first, the order in which the user saw them.
  return records.reverse().map((record) => ({
    type: 'message.status', messageId: record.key.id, chatJid: receipt.chatJid, recipientId: receipt.chatJid,
    status: receipt.status, timestamp: receipt.timestamp,
  }));
}
