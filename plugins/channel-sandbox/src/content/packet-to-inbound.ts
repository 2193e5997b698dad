import { type InboundMessage } from '@parley/core';
import { isGroupJid, jidUser, USER_SUFFIX } from '@parley/whatsapp-proto';
import { inboundContentOf, mentionsOf, typedMember } from '@parley/whatsapp-proto';
import type { MessagePacket } from '../sandbox-packets.js';

type Fields = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Normalized content of a proto-shaped message (spec 2.4): the shared WhatsApp mapping's. */
export { inboundContentOf, typedMember };

/**
 * A received message as Baileys' `cleanMessage` (Utils/process-message.js) leaves it: the key of a
 * reaction is turned to the receiver's view. `fromMe` says whether the reacted message is the
 * receiver's own, `remoteJid` is the chat, and `participant` is the one the key named, else the
 * sender's participant: the member in a group, '' in a direct chat (`jidNormalizedUser(undefined)`).
 */
function asReceived(message: Record<string, unknown>, chatJid: string, senderParticipant: string, receiver: { jid: string; lid: string }): Record<string, unknown> {
  const reaction = message.reactionMessage as Fields | undefined;
  const key = reaction?.key as Fields | undefined;
  if (!reaction || !key) return message;
  const author = str(key.participant) ?? str(key.remoteJid) ?? '';
  const own = author === receiver.lid || (author.endsWith(USER_SUFFIX) && jidUser(author) === jidUser(receiver.jid));
  const { remoteJid: _chat, fromMe: _fromMe, id, participant: _participant, ...rest } = key;
  return {
    ...message,
    reactionMessage: { ...reaction, key: { remoteJid: chatJid, fromMe: key.fromMe === true ? false : own, id, participant: str(key.participant) ?? senderParticipant, ...rest } },
  };
}

/** `{mentions}` of a message that mentions anyone, else nothing. */
export function mentioned(message: Record<string, unknown>): { mentions?: string[] } {
  const mentions = mentionsOf(message);
  return mentions ? { mentions } : {};
}

/** The InboundMessage a receiving phone (`receiver`) emits for a packet. */
export function inboundFromPacket(packet: MessagePacket, receiver: { jid: string; lid: string }): InboundMessage {
  const senderJid = `${packet.from}${USER_SUFFIX}`;
  const chatJid = packet.groupJid ?? senderJid;
  return {
    id: packet.id,
    chatJid,
    from: packet.from,
    fromMe: false,
    timestamp: packet.timestamp,
    // Status stories also carry a chat beside the sender (`status@broadcast`) but are not group messages.
    chatType: packet.groupJid && isGroupJid(packet.groupJid) ? 'group' : 'individual',
    ...(packet.groupJid && isGroupJid(packet.groupJid) ? { groupId: packet.groupJid } : {}),
    pushName: packet.fromName,
    content: inboundContentOf(packet.message, packet.id),
    ...(packet.quoted ? { context: { from: packet.quoted.from, id: packet.quoted.id } } : {}),
    ...mentioned(packet.message),
    record: {
      key: { remoteJid: chatJid, fromMe: false, id: packet.id, ...(packet.groupJid ? { participant: senderJid } : {}) },
      message: asReceived(packet.message, chatJid, packet.groupJid ? senderJid : '', receiver),
      messageTimestamp: String(packet.timestamp),
      status: 'DELIVERY_ACK',
      pushName: packet.fromName,
    },
  };
}
