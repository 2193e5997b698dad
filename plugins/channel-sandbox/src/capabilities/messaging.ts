import {
  ConflictError, isGroupJid, jidUser, newMessageId, toJid, type MessageRecord, type MessagingCapability, type PresenceRequest,
  type SendRequest,
} from '@parley/core';
import { outgoingToProto, SANDBOX_SEND_TYPES } from '../content/outgoing-to-proto.js';
import { inboundContentOf } from '../content/packet-to-inbound.js';
import type { SandboxDevice } from '../sandbox-device.js';

/**
 * Sending on the sandbox network: the record answers `PENDING`, the instance's own echo is emitted
 * (as linked devices see their sent messages), then `sent`, and `delivered`/`read` arrive as
 * receipts from the peer phone. A number no sandbox instance holds stays at `sent`.
 */
export class SandboxMessaging implements MessagingCapability {
  constructor(private readonly device: SandboxDevice) {}

  supports(type: SendRequest['content']['type']): boolean {
    return SANDBOX_SEND_TYPES.has(type);
  }

  async send(request: SendRequest): Promise<MessageRecord> {
    const device = this.device;
    if (!device.connected) throw new ConflictError('the instance is not connected', 'not_connected');
    const remoteJid = toJid(request.to, 'body.to');
    const message = outgoingToProto(request.content);
    if (request.quoted) {
      const inner = Object.values(message)[0] as Record<string, unknown>;
      inner.contextInfo = { stanzaId: request.quoted.key.id, participant: request.quoted.key.participant ?? request.quoted.key.remoteJid, quotedMessage: request.quoted.message };
    }
    const timestamp = Math.floor(Date.now() / 1000);
    const record: MessageRecord = {
      key: { remoteJid, fromMe: true, id: newMessageId() },
      message,
      messageTimestamp: String(timestamp),
      status: 'PENDING',
    };
    device.ctx.emit({
      type: 'message',
      message: {
        id: record.key.id, chatJid: remoteJid, from: device.number, fromMe: true, timestamp,
        chatType: isGroupJid(remoteJid) ? 'group' : 'individual', ...(isGroupJid(remoteJid) ? { groupId: remoteJid } : {}),
        content: inboundContentOf(message),
        ...(request.quoted ? { context: { from: jidUser(request.quoted.key.participant ?? request.quoted.key.remoteJid), id: request.quoted.key.id } } : {}),
        record,
      },
    });
    void this.dispatch(record, timestamp, request).catch((err: unknown) => device.ctx.logger.error({ err }, 'sandbox dispatch failed'));
    return record;
  }

  private async dispatch(record: MessageRecord, timestamp: number, request: SendRequest): Promise<void> {
    const device = this.device;
    await device.network.send(jidUser(record.key.remoteJid), {
      kind: 'message', id: record.key.id, from: device.number, fromName: await device.displayName(), timestamp, message: record.message,
      ...(request.quoted ? { quoted: { id: request.quoted.key.id, from: jidUser(request.quoted.key.participant ?? request.quoted.key.remoteJid) } } : {}),
    });
    device.ctx.emit({ type: 'message.status', messageId: record.key.id, chatJid: record.key.remoteJid, recipientId: jidUser(record.key.remoteJid), status: 'sent', timestamp });
  }

  async sendPresence(request: PresenceRequest): Promise<void> {
    if (!this.device.connected) throw new ConflictError('the instance is not connected', 'not_connected');
    await this.device.network.send(jidUser(toJid(request.to, 'body.to')), { kind: 'presence', from: this.device.number, status: request.status });
  }
}
