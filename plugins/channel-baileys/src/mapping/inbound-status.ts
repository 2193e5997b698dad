import type { ChannelEventPayload, DeliveryStatus, EventError } from '@parley/core';
import { isJidGroup, isJidStatusBroadcast, proto, toNumber, type MessageUserReceiptUpdate, type WAMessageUpdate } from '@whiskeysockets/baileys';
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

/**
 * Maps a `messages.update` item to a delivery status of a message the instance sent. Updates of
 * received messages and updates without a status answer undefined.
 */
export async function statusFromUpdate(update: WAMessageUpdate, env: InboundEnv): Promise<StatusPayload | undefined> {
  const { key } = update;
  const raw = update.update.status;
  if (!key.fromMe || !key.id || raw === null || raw === undefined) return undefined;
  const status = DELIVERY[typeof raw === 'number' ? raw : proto.WebMessageInfo.Status[raw as unknown as keyof typeof proto.WebMessageInfo.Status]];
  const target = await recipient(env, key);
  if (!status || !target) return undefined;
  return {
    type: 'message.status',
    messageId: key.id,
    ...target,
    status,
    timestamp: env.now(),
    ...(status === 'failed' ? { error: sendError(update.update.messageStubParameters) } : {}),
  };
}

/**
 * Maps a per-member receipt (groups and status broadcasts) to a delivery status carrying the member.
 * A read receipt is flagged `receipt` (spec 6.3 `receipt`).
 */
export async function statusFromReceipt(update: MessageUserReceiptUpdate, env: InboundEnv): Promise<StatusPayload | undefined> {
  const { key, receipt } = update;
  if (!key.fromMe || !key.id || !receipt.userJid) return undefined;
  const target = await recipient(env, key);
  if (!target) return undefined;
  const participant = (await resolvePn(env, receipt.userJid, undefined)) ?? receipt.userJid;
  const base = { type: 'message.status' as const, messageId: key.id, ...target, participant };
  if (receipt.playedTimestamp) return { ...base, status: 'played', timestamp: toNumber(receipt.playedTimestamp) };
  if (receipt.readTimestamp) return { ...base, status: 'read', timestamp: toNumber(receipt.readTimestamp), receipt: true };
  if (receipt.receiptTimestamp) return { ...base, status: 'delivered', timestamp: toNumber(receipt.receiptTimestamp) };
  return undefined;
}
