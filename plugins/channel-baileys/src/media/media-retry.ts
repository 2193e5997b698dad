import { ParleyError, UpstreamError, type MessageRepository } from '@parley/core';
import { normalizeMessageContent, proto, type WAMessage } from '@whiskeysockets/baileys';
import { messageJson, messageProto } from '../mapping/record.js';
import type { BaileysSocket } from '../socket.js';
import { boomStatus } from '../util/errors.js';

/**
 * Statuses with which WhatsApp's media host says a file is gone (it keeps media for some weeks): a client
 * then asks the phone to upload it again (Baileys Utils/messages.js REUPLOAD_REQUIRED_STATUS; whatsmeow
 * mediaretry.go SendMediaRetryReceipt, "getting a 404 or 410 error downloading media").
 */
const GONE_STATUSES = [404, 410];

/**
 * Whether a download failed because the media host no longer has the file. Baileys rc14's own check in
 * `downloadMediaMessage` reads `error.status`, which its Boom errors do not have (they carry
 * `output.statusCode`), so it never asks for a new upload (WhiskeySockets/Baileys issue #2767): the channel asks.
 */
export function mediaGone(err: unknown): boolean {
  const status = boomStatus(err);
  return status !== undefined && GONE_STATUSES.includes(status);
}

/**
 * Asks the account's phone to upload a message's media again (Baileys `updateMediaMessage`: a media retry
 * receipt, answered by the phone's `mediaretry` notification) and points `message`'s media at the new
 * path. Baileys builds the new URL from the media host of the last `media_conn` it fetched, and before any
 * upload it has fetched none (its default, mmg.whatsapp.net, then stands in for the account's host): the
 * current one is fetched first. A phone that no longer has the file (NOT_FOUND) is 404 `media_not_found`;
 * any other failure of the phone a 502.
 */
export async function renewMedia(socket: BaileysSocket, message: WAMessage): Promise<void> {
  const what = `media of message ${message.key.id ?? ''}`;
  await socket.refreshMediaConn(false);
  try {
    await socket.updateMediaMessage(message);
  } catch (err) {
    const status = boomStatus(err);
    const result = resultOf(err);
    if (status === 404) throw new ParleyError(404, 'media_not_found', `${what} is no longer on WhatsApp's media servers and the phone no longer has it (${result})`);
    throw new UpstreamError(`WhatsApp refused the media download: the phone could not upload ${what} again (${result})`, {
      ...(status !== undefined ? { upstreamCode: status } : {}), retryable: false,
    });
  }
}

/**
 * The phone's answer a failed media retry carries: the decrypted `MediaRetryNotification` (Boom `data.result`)
 * or the notification's `<error code>` (Boom `data.code`), by its result name (`NOT_FOUND`, `GENERAL_ERROR`…).
 */
function resultOf(err: unknown): string {
  const data = (err as { data?: { result?: unknown; code?: unknown } } | null)?.data;
  const code = typeof data?.result === 'number' ? data.result : Number(data?.code);
  return proto.MediaRetryNotification.ResultType[code] ?? (err instanceof Error ? err.message : String(err));
}

/**
 * Stores where a message's media was uploaded again in its record (`member`'s `directPath` and `url`), so a
 * later download goes there instead of asking the phone once more. The record is read afresh (its status
 * may have moved while the download ran); a record deleted meanwhile stays deleted.
 */
export async function keepRenewedMedia(
  messages: MessageRepository, instance: string, id: string, member: string, renewed: { directPath?: string | null; url?: string | null },
): Promise<void> {
  const record = await messages.get(instance, id);
  if (!record) return;
  const message = messageProto(record.message);
  const media = normalizeMessageContent(message)?.[member as 'imageMessage'];
  if (!media) return;
  media.directPath = renewed.directPath ?? null;
  media.url = renewed.url ?? null;
  await messages.upsert(instance, { ...record, message: messageJson(message) });
}
