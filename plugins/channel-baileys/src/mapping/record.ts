import type { MessageContent, MessageKey, MessageRecord, MessageStatus } from '@parley/core';
import { proto, toNumber, type WAMessage } from '@whiskeysockets/baileys';

/**
 * Members of a message that carry one delivery's Signal group keys, not content (dropped from records).
 * `messageContextInfo` is kept: its `messageSecret` is the key of a poll's votes and an event's
 * responses, and Baileys reads it from `getMessage` answers (decryption, resends on retry requests).
 */
const TRANSPORT_MEMBERS = ['senderKeyDistributionMessage', 'fastRatchetKeySenderKeyDistributionMessage'];

const STATUS_BY_PROTO: Record<number, MessageStatus | undefined> = {
  [proto.WebMessageInfo.Status.ERROR]: 'ERROR',
  [proto.WebMessageInfo.Status.SERVER_ACK]: 'SERVER_ACK',
  [proto.WebMessageInfo.Status.DELIVERY_ACK]: 'DELIVERY_ACK',
  [proto.WebMessageInfo.Status.READ]: 'READ',
  [proto.WebMessageInfo.Status.PLAYED]: 'PLAYED',
};

/**
 * The JSON form of a message's content, as stored in records (spec 2.4 `message`): proto field names,
 * bytes as base64, 64-bit numbers as text, enums by name. Sender-key distribution members are left out.
 */
export function messageJson(message: proto.IMessage | null | undefined): MessageContent {
  if (!message) return {};
  const json = proto.Message.toObject(proto.Message.fromObject(message), {
    longs: String, enums: String, bytes: String, json: true,
  }) as MessageContent;
  for (const member of TRANSPORT_MEMBERS) delete json[member];
  return json;
}

/** Inverse of {@link messageJson}: the proto message of a stored record. */
export function messageProto(content: MessageContent): proto.Message {
  return proto.Message.fromObject(content);
}

/** REST status of a proto status (number or enum name); undefined for PENDING or unknown. */
export function restStatus(status: WAMessage['status'] | string | null | undefined): MessageStatus | undefined {
  if (status === null || status === undefined) return undefined;
  const value = typeof status === 'string' ? proto.WebMessageInfo.Status[status as keyof typeof proto.WebMessageInfo.Status] : status;
  return typeof value === 'number' ? STATUS_BY_PROTO[value] : undefined;
}

/** Unix seconds of a proto timestamp (number or Long), or `fallback`. */
export function seconds(value: WAMessage['messageTimestamp'], fallback: number): number {
  const n = value === null || value === undefined ? 0 : toNumber(value);
  return n > 0 ? n : fallback;
}

/** A Baileys message built from a stored record (for quoting and media download). */
export function recordToWAMessage(record: MessageRecord): WAMessage {
  const key: MessageKey = record.key;
  return {
    key: { remoteJid: key.remoteJid, fromMe: key.fromMe, id: key.id, ...(key.participant ? { participant: key.participant } : {}) },
    message: messageProto(record.message),
    messageTimestamp: Number(record.messageTimestamp),
  };
}
