import type { ChannelEventPayload, DeliveryStatus, InboundMessage, Storage } from '@parley/core';
import { isGroupId } from './addressing.js';
import { messageIdOf } from './signal-ids.js';

/** What the network pushes to an account's device: a message, or receipts of messages it sent. */
export interface SignalEnvelope {
  /** The sender's account UUID. */
  source: string;
  sourceName?: string;
  /** Unix milliseconds: the message's timestamp (its id with `source`). */
  timestamp: number;
  dataMessage?: { message: string; groupInfo?: { groupId: string }; quote?: { id: number; author: string } };
  receiptMessage?: { type: 'DELIVERY' | 'READ'; timestamps: number[] };
}

/** The body the network posts to the driver's receive route. */
export interface SignalPush {
  /** The receiving account (the instance's). */
  account: string;
  envelope: SignalEnvelope;
}

/** True when `value` has the shape of a {@link SignalPush} (the route's schema checked the members' types). */
export function isSignalPush(value: unknown): value is SignalPush {
  const push = value as Partial<SignalPush> | null;
  return typeof push?.account === 'string' && typeof push.envelope?.source === 'string' && typeof push.envelope.timestamp === 'number';
}

const RECEIPTS: Record<'DELIVERY' | 'READ', DeliveryStatus> = { DELIVERY: 'delivered', READ: 'read' };

/** The `message` event of a data message: a text, in the sender's chat or its group's. */
function messageEvent(envelope: SignalEnvelope): ChannelEventPayload {
  const data = envelope.dataMessage!;
  const group = data.groupInfo ? `group.${data.groupInfo.groupId}` : undefined;
  const chat = group && isGroupId(group) ? group : envelope.source;
  const id = messageIdOf(envelope.source, envelope.timestamp);
  const seconds = Math.floor(envelope.timestamp / 1000);
  const message: InboundMessage = {
    id, chatJid: chat, from: envelope.source, fromUserId: envelope.source, fromMe: false, timestamp: seconds,
    chatType: group ? 'group' : 'individual', ...(group ? { groupId: group } : {}), ...(envelope.sourceName ? { pushName: envelope.sourceName } : {}),
    content: { type: 'text', body: data.message },
    ...(data.quote ? { context: { from: data.quote.author, id: messageIdOf(data.quote.author, data.quote.id) } } : {}),
    record: {
      key: { remoteJid: chat, fromMe: false, id, ...(group ? { participant: envelope.source } : {}) },
      message: { conversation: data.message }, messageTimestamp: String(seconds), status: 'DELIVERY_ACK', provider: 'signal',
      ...(envelope.sourceName ? { pushName: envelope.sourceName } : {}),
    },
  };
  return { type: 'message', message };
}

/**
 * The events of one envelope. Receipts name the receiving account's own messages by timestamp: each
 * becomes a `message.status` of the stored message (its chat read from storage; a receipt of a
 * message not stored, or sent before this device, is dropped).
 */
export async function eventsOf(push: SignalPush, instanceId: string, storage: Storage): Promise<ChannelEventPayload[]> {
  const { envelope } = push;
  if (envelope.dataMessage) return [messageEvent(envelope)];
  if (!envelope.receiptMessage) return [];
  const status = RECEIPTS[envelope.receiptMessage.type];
  const events: ChannelEventPayload[] = [];
  for (const timestamp of envelope.receiptMessage.timestamps) {
    const record = await storage.messages.get(instanceId, messageIdOf(push.account, timestamp));
    if (!record) continue;
    events.push({
      type: 'message.status', messageId: record.key.id, chatJid: record.key.remoteJid, recipientId: envelope.source, status,
      timestamp: Math.floor(envelope.timestamp / 1000), ...(isGroupId(record.key.remoteJid) ? { participant: envelope.source } : {}),
    });
  }
  return events;
}
