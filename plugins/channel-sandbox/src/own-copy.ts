import { STATUS_BROADCAST, type MessageRecord } from '@parley/core';
import { inboundContentOf } from './content/packet-to-inbound.js';
import type { SandboxDevice } from './sandbox-device.js';

/**
 * Emits the phone's own copy of something it sent outside the messaging send path (a status story,
 * a status mention, an order), as its linked devices see it; the server stores it like any message.
 */
export function emitOwnCopy(device: SandboxDevice, sent: { id: string; chatJid: string; timestamp: number; message: Record<string, unknown> }): void {
  const broadcast = sent.chatJid === STATUS_BROADCAST;
  const record: MessageRecord = {
    key: { remoteJid: sent.chatJid, fromMe: true, id: sent.id, ...(broadcast ? { participant: device.jid } : {}) },
    message: sent.message,
    messageTimestamp: String(sent.timestamp),
    status: 'PENDING',
  };
  device.ctx.emit({
    type: 'message',
    message: {
      id: sent.id, chatJid: sent.chatJid, from: device.number, fromMe: true, timestamp: sent.timestamp, chatType: 'individual',
      content: inboundContentOf(sent.message, sent.id), record,
    },
  });
}
