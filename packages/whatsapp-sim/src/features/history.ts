import { deflateSync } from 'node:zlib';
import { proto } from '@whiskeysockets/baileys';
import { stanzaId, unixNow } from '../network/network.js';
import type { Network } from '../network/network.js';
import type { Account, CompanionDevice } from '../network/model.js';
import type { ReceivedMessage } from '../network/phone.js';
import { takeBundle } from './prekeys.js';
import { keyShareMessage } from './app-state.js';
import { conversationsOf } from './chat-state.js';

/** Most messages one history chunk carries (whole chats: a larger chat goes alone). */
export const HISTORY_CHUNK_MESSAGES = 2_000;

/**
 * A new companion's first history: right after its first login the phone sends it an INITIAL_BOOTSTRAP
 * history-sync notification whose payload is inline (`initialHistBootstrapInlinePayload`, zlib-deflated
 * `HistorySync`; the companion asks for that with `inlineInitialPayloadInE2EeMsg` when it registers) with
 * the phone's first chats (`seedHistory`; none by default) with each chat's state (`chat-state.ts`) and the account's push name, then, when the
 * history is larger than one chunk ({@link HISTORY_CHUNK_MESSAGES}), RECENT chunks with the rest, in
 * `chunkOrder`, `progress` reaching 100 on the last (WhatsApp follows the bootstrap with RECENT chunks;
 * Baileys' `processHistoryMessage`, Utils/history.js, maps both alike and reports RECENT complete at 100).
 * Without a bootstrap, Baileys waits 20 s for a history before it hands its first events over. Every
 * chunk travels inline: Baileys 7.0.0-rc14 downloads a history blob from `mmg.whatsapp.net` whatever
 * host `media_conn` named (a history-sync notification carries a direct path but no URL), so a blob on
 * the simulator's host would never be fetched; Baileys reads an inline payload of any sync type
 * (Utils/history.js `downloadAndProcessHistorySyncNotification`).
 */
export async function sendInitialHistory(network: Network, account: Account, device: CompanionDevice): Promise<void> {
  const chunks = historyChunks(withReceivedSince(conversationsOf(account), account, device.linkedAt));
  const total = chunks.reduce((sum, chunk) => sum + messageCount(chunk), 0);
  let sent = 0;
  // The app-state key first: Baileys syncs app state while it processes the history, and needs the key for it.
  const bodies: proto.IMessage[] = [keyShareMessage(account)];
  chunks.forEach((conversations, chunkOrder) => {
    sent += messageCount(conversations);
    const syncType = chunkOrder === 0 ? 'INITIAL_BOOTSTRAP' : 'RECENT';
    const progress = total === 0 ? 100 : Math.floor((sent * 100) / total);
    const pushnames = chunkOrder === 0 ? [{ id: `${account.number}@s.whatsapp.net`, pushname: account.pushName }] : undefined;
    bodies.push(historyNotification(syncType, conversations, chunkOrder, progress, pushnames));
  });
  await sendToCompanion(network, account, device, bodies);
}

/**
 * One later RECENT chunk (chunk order 1, progress 100) with `conversations`, sent by the phone of `account` to
 * its companion `device` now (or queued for its next login): what a phone sends after the bootstrap.
 */
export async function sendRecentChunk(network: Network, account: Account, device: CompanionDevice, conversations: proto.IConversation[]): Promise<void> {
  await sendToCompanion(network, account, device, [historyNotification('RECENT', conversations, 1, 100)]);
}

function historyNotification(
  syncType: 'INITIAL_BOOTSTRAP' | 'RECENT', conversations: proto.IConversation[], chunkOrder: number, progress: number, pushnames?: proto.IPushname[],
): proto.IMessage {
  const history = proto.HistorySync.encode({
    syncType: proto.HistorySync.HistorySyncType[syncType], conversations, chunkOrder, progress, ...(pushnames ? { pushnames } : {}),
  }).finish();
  return {
    protocolMessage: {
      type: proto.Message.ProtocolMessage.Type.HISTORY_SYNC_NOTIFICATION,
      historySyncNotification: {
        syncType: proto.Message.HistorySyncType[syncType], chunkOrder, progress, initialHistBootstrapInlinePayload: deflateSync(history),
      },
    },
  };
}

/** Encrypts `bodies` from the phone of `account` for its companion `device` (a session started if none) and delivers them in order. */
async function sendToCompanion(network: Network, account: Account, device: CompanionDevice, bodies: proto.IMessage[]): Promise<void> {
  if (!(await account.phone.hasSession(device.jid))) {
    const bundle = takeBundle(network, device.jid);
    if (!bundle) return;
    await account.phone.startSession(device.jid, bundle);
  }
  for (const body of bodies) {
    const { type, ciphertext } = await account.phone.encrypt(device.jid, body);
    network.deliver(device, {
      tag: 'message',
      // From the account's own phone without `recipient`: the companion takes it as its own (fromMe) peer traffic.
      attrs: { from: `${account.number}@s.whatsapp.net`, id: stanzaId().toUpperCase(), type: 'text', category: 'peer', t: unixNow() },
      content: [{ tag: 'enc', attrs: { v: '2', type }, content: ciphertext }],
    });
  }
}

/**
 * The conversations with the 1:1 messages the phone received from the time the companion was linked until
 * now, as a phone's history holds what it had when it built it: a message that reached the account while the
 * new device restarted after pairing is in its history *and* waits in its offline queue (Baileys gets both
 * in one buffered window). Earlier traffic stays out, so a history is what `seedHistory` seeded otherwise.
 */
function withReceivedSince(conversations: proto.IConversation[], account: Account, linkedAt: Date): proto.IConversation[] {
  const since = Math.floor(linkedAt.getTime() / 1000);
  return withReceived(conversations, account.phone.received.filter((m) => m.group === undefined && m.timestamp >= since));
}

/** A 1:1 message a phone received, as a history holds it. */
export type HistoryMessage = Pick<ReceivedMessage, 'fromNumber' | 'id' | 'message' | 'timestamp'>;

/** `conversations` with each of `received` (oldest first) at the top of its sender's chat, a chat added where there is none. */
export function withReceived(conversations: proto.IConversation[], received: HistoryMessage[]): proto.IConversation[] {
  if (received.length === 0) return conversations;
  const byChat = new Map(conversations.map((chat) => [chat.id ?? '', { ...chat, messages: [...(chat.messages ?? [])] }]));
  for (const message of received) {
    const jid = `${message.fromNumber}@s.whatsapp.net`;
    const chat = byChat.get(jid) ?? { id: jid, messages: [] };
    byChat.set(jid, chat);
    const info: proto.IWebMessageInfo = {
      key: { remoteJid: jid, fromMe: false, id: message.id }, message: proto.Message.fromObject(message.message), messageTimestamp: message.timestamp,
    };
    // Newest first, as WhatsApp lists a conversation's messages.
    chat.messages!.unshift({ message: info });
    chat.conversationTimestamp = message.timestamp;
  }
  return [...byChat.values()];
}

const messageCount = (conversations: proto.IConversation[]) => conversations.reduce((sum, chat) => sum + (chat.messages?.length ?? 0), 0);

/** The history cut into chunks of whole chats, at most {@link HISTORY_CHUNK_MESSAGES} messages each unless one chat is larger; at least one (maybe empty). */
function historyChunks(history: proto.IConversation[]): proto.IConversation[][] {
  const chunks: proto.IConversation[][] = [[]];
  let size = 0;
  for (const chat of history) {
    const count = chat.messages?.length ?? 0;
    if (size > 0 && size + count > HISTORY_CHUNK_MESSAGES) {
      chunks.push([]);
      size = 0;
    }
    chunks[chunks.length - 1]!.push(chat);
    size += count;
  }
  return chunks;
}
