import { KeyedSerialQueue, MESSAGE_STATUS_RANK, restStatusOf, type InboundMessage } from '@parley/core';
import { isGroupJid, USER_SUFFIX } from '@parley/whatsapp-proto';
import { receiveEphemeral } from './capabilities/chats.js';
import { establishSession, hasBlocked } from './capabilities/contacts.js';
import { inboundFromPacket } from './content/packet-to-inbound.js';
import { keepReceivedMedia } from './content/received-media.js';
import { loggedSince } from './event-log.js';
import type { SandboxDevice } from './sandbox-device.js';
import { PhoneWentOfflineError, type SandboxPhone } from './sandbox-network.js';
import type { MessagePacket, Packet, ReceiptPacket } from './sandbox-packets.js';

/**
 * A sandbox phone as the network sees it while online: it receives packets and turns them into
 * channel events. Apart from {@link SandboxDevice} so that the device (which every capability uses)
 * does not depend on the capabilities that incoming packets reach (chats, contacts).
 */
export class DeviceInbound implements SandboxPhone {
  /**
   * Arrivals of messages, one chat's after another in the order the network handed them over: the
   * network hands each packet over as it comes, and an arrival waits on storage (the session, media,
   * the unread mark), so a later message of a chat could otherwise be emitted before an earlier one.
   * A phone shows a chat's messages in the order they came, and so does the server.
   */
  private readonly arrivals = new KeyedSerialQueue();

  constructor(readonly device: SandboxDevice) {}

  get number(): string {
    return this.device.number;
  }

  get instanceId(): string {
    return this.device.instanceId;
  }

  /**
   * Acts on a packet from the network, then waits until the server has processed the events it
   * emitted: the network deletes the packet from the inbox only after that (see
   * {@link SandboxPhone.receive}).
   */
  async receive(packet: Packet, replayed: boolean): Promise<void> {
    if (packet.kind === 'presence') {
      this.device.ctx.emit({ type: 'presence', jid: `${packet.from}${USER_SUFFIX}`, status: packet.status });
      return;
    }
    if (packet.kind === 'message') await this.onMessage(packet, replayed);
    else if (packet.kind === 'receipt') await this.onReceipt(packet, replayed);
    else if (packet.kind === 'notification') for (const event of packet.events) this.device.ctx.emit(event);
    else if (packet.kind === 'call') await this.device.callSignals?.(packet);
    else receiveEphemeral(this.device, packet);
    await this.device.ctx.settled?.();
    // Stopped meanwhile (its node handed it over, or lost its lease): the server may have dropped what the
    // packet caused after forgetting the instance, so the packet stays in the inbox for the phone's next
    // owner, which replays it (a replay of what was handled already is only acknowledged again).
    if (!this.device.connected) throw new PhoneWentOfflineError(this.device.instanceId);
  }

  /**
   * A receipt for a message this phone sent. A replayed receipt of a direct chat that the stored
   * record has reached already, and whose event the server logged, is dropped (a group's receipts come
   * from each member, and the record moves with the first). The log is searched from the message's
   * send time: a replayed receipt is stamped when it is sent again, any time after the first one.
   */
  private async onReceipt(packet: ReceiptPacket, replayed: boolean): Promise<void> {
    if (replayed && !isGroupJid(packet.chatJid)) {
      const stored = await this.device.ctx.storage.messages.get(this.device.ctx.instanceId, packet.messageId);
      if (stored && MESSAGE_STATUS_RANK[stored.status] >= MESSAGE_STATUS_RANK[restStatusOf(packet.status)]
        && (await loggedSince(this.device.ctx, Number(stored.messageTimestamp), 'message.status', (e) => e.messageId === packet.messageId && e.status === packet.status))) return;
    }
    this.device.ctx.emit({
      type: 'message.status', messageId: packet.messageId, chatJid: packet.chatJid, recipientId: packet.from,
      status: packet.status, timestamp: packet.timestamp, ...(packet.status === 'read' ? { receipt: true } : {}),
    });
  }

  /**
   * A message reaches the phone: emitted, kept as unread, acknowledged to the sender with a delivery
   * receipt (a reply: the message stays in the inbox until the sender has stored the receipt). A
   * message the server has stored already — a replay, or a send repeated under the same id (the
   * outbound queue sending again after a crash) — is only acknowledged again: the message id decides,
   * as on WhatsApp's phones, so a message never shows twice. Except a replayed one whose event is not
   * logged (a crash came between its store and its webhooks): emitted again, so its webhook is not lost.
   */
  private async onMessage(packet: MessagePacket, replayed: boolean): Promise<void> {
    // Queued before any wait (the network's hand-over order). The receipt goes after, outside the queue:
    // it waits for the sender to store what it caused, which the chat's next arrival need not wait for.
    const arrived = await this.arrivals.run(packet.groupJid ?? packet.from, () => this.arrive(packet, replayed));
    if (!arrived) return;
    await this.device.network.reply(packet.from, {
      kind: 'receipt', from: this.device.number, messageId: packet.id, chatJid: packet.groupJid ?? this.device.jid, status: 'delivered',
      timestamp: Math.floor(this.device.network.now() / 1000),
    }, replayed);
  }

  /** Emits a message that is new to the server; answers false for a blocked sender's (dropped, no receipt). */
  private async arrive(packet: MessagePacket, replayed: boolean): Promise<boolean> {
    // A blocked sender's direct messages never arrive (nor get a delivery receipt); group messages still do.
    if (!packet.groupJid && (await hasBlocked(this.device, packet.from))) return false;
    // A replay may follow a hand-over that emitted the message and failed after (storage unavailable):
    // its event, held by the server until storage is back, is processed before the replay looks for it.
    if (replayed) await this.device.ctx.settled?.();
    const stored = await this.device.ctx.storage.messages.get(this.device.ctx.instanceId, packet.id);
    if (!stored || (replayed && !(await loggedSince(this.device.ctx, packet.timestamp, 'message', (e) => (e.message as { id?: string } | undefined)?.id === packet.id)))) {
      await establishSession(this.device, packet.from);
      const message: InboundMessage = inboundFromPacket(packet, this.device);
      await keepReceivedMedia(this.device.ctx, packet);
      // Unread before the server hears of it: a chat read on arrival (markMessageRead) must find the message.
      await this.device.trackUnread(message.chatJid, packet.timestamp, { id: packet.id, from: packet.from, senderChat: packet.groupJid ?? this.device.jid });
      this.device.ctx.emit({ type: 'message', message });
    }
    return true;
  }
}
