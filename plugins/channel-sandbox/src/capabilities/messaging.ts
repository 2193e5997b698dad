import { randomBytes } from 'node:crypto';
import { ForbiddenError, newMessageId, type CallLinkType, type MediaBlob, type MessageRecord, type MessagingCapability, type PresenceRequest, type SendRequest } from '@parley/core';
import { isGroupJid, jidUser, toJid } from '@parley/whatsapp-proto';
import { webpStickerMedia } from '@parley/whatsapp-proto';
import { outgoingToProto, SANDBOX_SEND_TYPES } from '../content/outgoing-to-proto.js';
import { inboundContentOf, mentioned, typedMember } from '../content/packet-to-inbound.js';
import { receivedMedia, toWire } from '../content/received-media.js';
import { quotedSender, quoteInto } from '../content/reply-context.js';
import { loggedSince } from '../event-log.js';
import type { SandboxDevice } from '../sandbox-device.js';
import { GROUPS_NAMESPACE, type StoredGroup } from '../sandbox-group-state.js';
import type { MessagePacket } from '../sandbox-packets.js';

/**
 * Sending on the sandbox network: the instance's own echo is emitted (as linked devices see their
 * sent messages), the packet (with the media bytes) is written to the inbox of every recipient of the
 * chat, `sent` is emitted, and the record answers `PENDING`; `delivered`/`read` arrive as receipts from the
 * peers. A number no sandbox instance holds stays at `sent`.
 */
export class SandboxMessaging implements MessagingCapability {
  /** The sandbox carries WhatsApp's messages: mentions and link previews included. */
  readonly extras = { mentions: true, linkPreview: true };

  constructor(private readonly device: SandboxDevice) {}

  supports(type: SendRequest['content']['type']): boolean {
    return SANDBOX_SEND_TYPES.has(type);
  }

  async send(request: SendRequest): Promise<MessageRecord> {
    const device = this.device;
    this.device.requireConnected();
    const remoteJid = toJid(request.to, 'body.to');
    const group = isGroupJid(remoteJid);
    if (group) await this.requireMayPost(remoteJid);
    // Stickers go as WhatsApp's apps send them: WebP, converted the way the Baileys channel converts them.
    const content = request.content.type === 'sticker' ? { ...request.content, media: await webpStickerMedia(request.content.media) } : request.content;
    const nowMs = device.network.now();
    const message = outgoingToProto(content, nowMs);
    const quoted = request.quoted ? { id: request.quoted.key.id, sender: quotedSender(request.quoted, device.jid) } : undefined;
    if (request.quoted) quoteInto(message, request.quoted, remoteJid, device.jid);
    const timestamp = Math.floor(nowMs / 1000);
    const record: MessageRecord = {
      key: { remoteJid, fromMe: true, id: request.id ?? newMessageId() },
      message,
      messageTimestamp: String(timestamp),
      status: 'PENDING',
    };
    const packet: MessagePacket = {
      kind: 'message', id: record.key.id, from: device.number, fromName: await device.displayName(), timestamp, message,
      ...(group ? { groupJid: remoteJid } : {}),
      ...('media' in content ? { media: toWire(content.media) } : {}),
      ...(quoted ? { quoted: { id: quoted.id, from: jidUser(quoted.sender) } } : {}),
    };
    await this.dispatch(record, packet);
    return record;
  }

  /**
   * An announcement group (`setting=announcement`) takes messages from its admins only; WhatsApp
   * refuses the others' sends.
   */
  private async requireMayPost(groupJid: string): Promise<void> {
    const g = await this.device.ctx.storage.state.get<StoredGroup>(GROUPS_NAMESPACE, groupJid);
    if (g?.announce && !g.participants.some((p) => p.id === this.device.jid && p.admin)) {
      throw new ForbiddenError(`only admins can send messages to this ${g.kind}`, 'not_admin');
    }
  }

  /**
   * Hands the packet to every phone the chat reaches except this one, then reports the sender's own
   * copy (its `message` event) and `sent`. Part of the send itself: once the API answers, the packet is in the
   * recipients' inboxes in storage and reaches them even if the server dies right after. The own copy
   * comes only once the packet is in the inboxes (before any recipient can get it, which happens on a
   * later turn): reported earlier, a send failing on its way (storage unreachable) left a stored
   * `PENDING` record that the queue takes for the mark of a message sent, and never sent it.
   */
  private async dispatch(record: MessageRecord, packet: MessagePacket): Promise<void> {
    const device = this.device;
    const recipients = await device.network.recipientsOf(record.key.remoteJid);
    await device.network.sendToAll(recipients.filter((number) => number !== device.number), packet);
    this.emitOwnCopy(record);
    this.emitSent(record);
  }

  /**
   * The own copy and `sent` of a send whose record the server stored before a crash cut off their
   * webhooks (see {@link MessagingCapability.resumeSent}): each emitted again unless the event log
   * holds it. The packet reached the recipients' inboxes before either was first reported.
   */
  async resumeSent(record: MessageRecord): Promise<void> {
    const { ctx } = this.device;
    const id = record.key.id;
    const since = Number(record.messageTimestamp);
    if (!(await loggedSince(ctx, since, 'message', (e) => (e.message as { id?: string } | undefined)?.id === id))) {
      this.emitOwnCopy({ key: record.key, message: record.message, messageTimestamp: record.messageTimestamp, status: 'PENDING' });
    }
    if (!(await loggedSince(ctx, since, 'message.status', (e) => e.messageId === id && e.status === 'sent'))) this.emitSent(record);
  }

  /** The phone's own copy of a message it sent (as its linked devices see it), carrying `record`. */
  private emitOwnCopy(record: MessageRecord): void {
    const { key, message } = record;
    const group = isGroupJid(key.remoteJid);
    // A reply names what it quotes in its typed member's contextInfo (quoteInto).
    const quote = typedMember(message)[1].contextInfo as { stanzaId?: string; participant?: string } | undefined;
    this.device.ctx.emit({
      type: 'message',
      message: {
        id: key.id, chatJid: key.remoteJid, from: this.device.number, fromMe: true, timestamp: Number(record.messageTimestamp),
        chatType: group ? 'group' : 'individual', ...(group ? { groupId: key.remoteJid } : {}),
        content: inboundContentOf(message, key.id),
        ...(quote?.stanzaId && quote.participant ? { context: { from: jidUser(quote.participant), id: quote.stanzaId } } : {}),
        ...mentioned(message),
        record,
      },
    });
  }

  private emitSent(record: MessageRecord): void {
    this.device.ctx.emit({
      type: 'message.status', messageId: record.key.id, chatJid: record.key.remoteJid, recipientId: jidUser(record.key.remoteJid), status: 'sent',
      timestamp: Number(record.messageTimestamp),
    });
  }

  async sendPresence(request: PresenceRequest): Promise<void> {
    this.device.requireConnected();
    await this.device.network.send(jidUser(toJid(request.to, 'body.to')), { kind: 'presence', from: this.device.number, status: request.status });
  }

  /**
   * A call link in WhatsApp's format (`https://call.whatsapp.com/<video|voice>/<token>`: an audio call's
   * link says `voice`, Baileys' CALL_AUDIO_PREFIX). The sandbox simulates no call behind it: the link is
   * only text to share.
   */
  async createCallLink(type: CallLinkType): Promise<string> {
    this.device.requireConnected();
    return `https://call.whatsapp.com/${type === 'video' ? 'video' : 'voice'}/${randomBytes(16).toString('base64url')}`;
  }

  /** The phone's own copy of media it received (media it sent is stored by the server). */
  downloadMedia(record: MessageRecord): Promise<MediaBlob | null> {
    return receivedMedia(this.device.ctx, record.key.id);
  }
}
