import { deflateSync } from 'node:zlib';
import { proto } from '@whiskeysockets/baileys';
import { stanzaId, unixNow } from '../network/network.js';
import type { Network } from '../network/network.js';
import type { Account, CompanionDevice } from '../network/model.js';
import { takeBundle } from './prekeys.js';
import { keyShareMessage } from './app-state.js';

/**
 * A new companion's first history: right after its first login the phone sends it an INITIAL_BOOTSTRAP
 * history-sync notification whose payload is inline (`initialHistBootstrapInlinePayload`, zlib-deflated
 * `HistorySync`; the companion asks for that with `inlineInitialPayloadInE2EeMsg` when it registers) with
 * the phone's chats (`seedHistory`; none by default) and the account's push name. Without it, Baileys
 * waits 20 s for a history before it hands its first events over. The history always travels inline:
 * Baileys 7.0.0-rc14 downloads a history blob from `mmg.whatsapp.net` whatever host `media_conn` named
 * (a history-sync notification carries a direct path but no URL), so a blob on the simulator's host
 * would never be fetched.
 */
export async function sendInitialHistory(network: Network, account: Account, device: CompanionDevice): Promise<void> {
  const history = proto.HistorySync.encode({
    syncType: proto.HistorySync.HistorySyncType.INITIAL_BOOTSTRAP, conversations: account.history, chunkOrder: 0, progress: 100,
    pushnames: [{ id: `${account.number}@s.whatsapp.net`, pushname: account.pushName }],
  }).finish();
  const message: proto.IMessage = {
    protocolMessage: {
      type: proto.Message.ProtocolMessage.Type.HISTORY_SYNC_NOTIFICATION,
      historySyncNotification: {
        syncType: proto.Message.HistorySyncType.INITIAL_BOOTSTRAP, chunkOrder: 0, progress: 100,
        initialHistBootstrapInlinePayload: deflateSync(history),
      },
    },
  };
  if (!(await account.phone.hasSession(device.jid))) {
    const bundle = takeBundle(network, device.jid);
    if (!bundle) return;
    await account.phone.startSession(device.jid, bundle);
  }
  // The app-state key first: Baileys syncs app state while it processes the history, and needs the key for it.
  for (const body of [keyShareMessage(account), message]) {
    const { type, ciphertext } = await account.phone.encrypt(device.jid, body);
    network.deliver(device, {
      tag: 'message',
      // From the account's own phone without `recipient`: the companion takes it as its own (fromMe) peer traffic.
      attrs: { from: `${account.number}@s.whatsapp.net`, id: stanzaId().toUpperCase(), type: 'text', category: 'peer', t: unixNow() },
      content: [{ tag: 'enc', attrs: { v: '2', type }, content: ciphertext }],
    });
  }
}
