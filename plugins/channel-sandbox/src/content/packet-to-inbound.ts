import { USER_SUFFIX, type InboundContent, type InboundMessage } from '@parley/core';
import type { MessagePacket } from '../sandbox-packets.js';

/** Normalized content of a proto-shaped message (the members the sandbox produces). */
export function inboundContentOf(message: Record<string, unknown>): InboundContent {
  const [type, body] = Object.entries(message)[0] ?? ['unknown', {}];
  const m = (body ?? {}) as Record<string, unknown>;
  switch (type) {
    case 'conversation':
      return { type: 'text', body: String(body) };
    case 'extendedTextMessage':
      return { type: 'text', body: String(m.text ?? '') };
    default:
      return { type: 'unsupported', typeName: type };
  }
}

/** The InboundMessage a receiving phone emits for a packet. */
export function inboundFromPacket(packet: MessagePacket): InboundMessage {
  const senderJid = `${packet.from}${USER_SUFFIX}`;
  const chatJid = packet.groupJid ?? senderJid;
  return {
    id: packet.id,
    chatJid,
    from: packet.from,
    fromMe: false,
    timestamp: packet.timestamp,
    chatType: packet.groupJid ? 'group' : 'individual',
    ...(packet.groupJid ? { groupId: packet.groupJid } : {}),
    pushName: packet.fromName,
    content: inboundContentOf(packet.message),
    ...(packet.quoted ? { context: { from: packet.quoted.from, id: packet.quoted.id } } : {}),
    record: {
      key: { remoteJid: chatJid, fromMe: false, id: packet.id, ...(packet.groupJid ? { participant: senderJid } : {}) },
      message: packet.message,
      messageTimestamp: String(packet.timestamp),
      status: 'DELIVERY_ACK',
      pushName: packet.fromName,
    },
  };
}
