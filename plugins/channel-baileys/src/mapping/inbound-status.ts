import type { ChannelEventPayload, DeliveryStatus, EventError } from '@parley/core';
import { isJidGroup, isJidStatusBroadcast, proto, toNumber, type BinaryNode, type MessageUserReceiptUpdate, type WAMessageUpdate } from '@whiskeysockets/baileys';
import { userPart } from '../util/jids.js';
import { resolvePn, type InboundEnv } from './inbound-env.js';

type StatusPayload = Extract<ChannelEventPayload, { type: 'message.status' }>;

const DELIVERY: Partial<Record<number, DeliveryStatus>> = {
  [proto.WebMessageInfo.Status.ERROR]: 'failed',
  [proto.WebMessageInfo.Status.SERVER_ACK]: 'sent',
  [proto.WebMessageInfo.Status.DELIVERY_ACK]: 'delivered',
  [proto.WebMessageInfo.Status.READ]: 'read',
  [proto.WebMessageInfo.Status.PLAYED]: 'played',
};

/** The error of a failed send, from the ack error code Baileys puts in `messageStubParameters`. */
export function sendError(params: unknown): EventError {
  const list = Array.isArray(params) ? params.map(String) : [];
  const code = Number(list[0]);
  if (code === 463) {
    return {
      code: 463,
      title: 'Account restricted',
      message: list[1] ?? 'WhatsApp refused the message: the account is restricted or has no privacy token for this contact',
      details: 'ack error 463',
    };
  }
  return {
    code: Number.isFinite(code) ? code : 0,
    title: 'Message failed',
    message: `WhatsApp refused the message (error ${list[0] ?? 'unknown'})`,
    details: list.length > 0 ? `ack error ${list.join(' ')}` : 'ack error',
  };
}

/** Where a status goes: the chat, and the recipient as the spec shows it (digits, or the group id). */
async function recipient(env: InboundEnv, key: WAMessageUpdate['key']): Promise<{ chatJid: string; recipientId: string } | undefined> {
  const remote = key.remoteJid;
  if (!remote) return undefined;
  if (isJidGroup(remote) || isJidStatusBroadcast(remote)) return { chatJid: remote, recipientId: remote };
  const chatJid = (await resolvePn(env, remote, key.remoteJidAlt)) ?? remote;
  return { chatJid, recipientId: userPart(chatJid) };
}

/** Statuses of a sent message that imply it was delivered; records below that were never reported delivered. */
const AFTER_DELIVERY = new Set<DeliveryStatus>(['read', 'played']);
const UNDELIVERED = new Set(['PENDING', 'SERVER_ACK']);

/**
 * Maps a `messages.update` item to the delivery statuses of a message the instance sent, timed by
 * the receipt (`messageTimestamp` is the receipt's `t`, Socket/messages-recv.js `handleReceipt`).
 * Baileys' event buffer merges a delivery and a read of one message into one update
 * (Utils/event-buffer.js, `messages.update`), so a read or played for a message never reported
 * delivered is preceded by its `delivered`, timed by the delivery receipt when `deliveredAt` saw it
 * (the merged update keeps the read's time only), else like the read. Updates of received messages
 * and updates without a status answer none.
 */
export async function statusesFromUpdate(
  update: WAMessageUpdate, env: InboundEnv, deliveredAt: (messageId: string) => number | undefined = () => undefined,
): Promise<StatusPayload[]> {
  const { key } = update;
  const raw = update.update.status;
  if (!key.fromMe || !key.id || raw === null || raw === undefined) return [];
  const status = DELIVERY[typeof raw === 'number' ? raw : proto.WebMessageInfo.Status[raw as unknown as keyof typeof proto.WebMessageInfo.Status]];
  const target = await recipient(env, key);
  if (!status || !target) return [];
  const at = toNumber(update.update.messageTimestamp ?? 0);
  const base = { type: 'message.status' as const, messageId: key.id, ...target, timestamp: at > 0 ? at : env.now() };
  const stored = AFTER_DELIVERY.has(status) ? (await env.storedRecord(key.id))?.status : undefined;
  return [
    ...(stored !== undefined && UNDELIVERED.has(stored) ? [{ ...base, status: 'delivered' as const, timestamp: deliveredAt(key.id) ?? base.timestamp }] : []),
    { ...base, status, ...(status === 'failed' ? { error: sendError(update.update.messageStubParameters) } : {}) },
  ];
}

/**
 * The `sent` status of send `id` the server acked (`<ack class="message" from t>`, see ServerAcks),
 * timed by the ack's `t`; undefined when the ack names no chat.
 */
export async function statusFromAck(id: string, ack: BinaryNode, env: InboundEnv): Promise<StatusPayload | undefined> {
  const target = await recipient(env, { remoteJid: ack.attrs.from, id, fromMe: true });
  if (!target) return undefined;
  const at = Number(ack.attrs.t);
  return { type: 'message.status', messageId: id, ...target, status: 'sent', timestamp: at > 0 ? at : env.now() };
}

/**
 * Maps a per-member receipt (groups and status broadcasts) to the delivery statuses it carries for
 * the member, in order: Baileys' buffer merges a member's receipts of one message into one
 * (`receiptTimestamp` and `readTimestamp` both set), and each is reported. Baileys files a `played`
 * receipt under `readTimestamp` (Socket/messages-recv.js `handleReceipt`); `played(id, member)` says
 * whether the receipt WhatsApp sent was one. A read receipt is flagged `receipt` (spec 6.3 `receipt`).
 */
export async function statusesFromReceipt(
  update: MessageUserReceiptUpdate, env: InboundEnv, played: (messageId: string, member: string) => boolean,
): Promise<StatusPayload[]> {
  const { key, receipt } = update;
  if (!key.fromMe || !key.id || !receipt.userJid) return [];
  const target = await recipient(env, key);
  if (!target) return [];
  const participant = (await resolvePn(env, receipt.userJid, undefined)) ?? receipt.userJid;
  const base = { type: 'message.status' as const, messageId: key.id, ...target, participant };
  const statuses: StatusPayload[] = [];
  if (receipt.receiptTimestamp) statuses.push({ ...base, status: 'delivered', timestamp: toNumber(receipt.receiptTimestamp) });
  if (receipt.readTimestamp) {
    const timestamp = toNumber(receipt.readTimestamp);
    statuses.push(played(key.id, receipt.userJid) ? { ...base, status: 'played', timestamp } : { ...base, status: 'read', timestamp, receipt: true });
  }
  if (receipt.playedTimestamp) statuses.push({ ...base, status: 'played', timestamp: toNumber(receipt.playedTimestamp) });
  return statuses;
}
