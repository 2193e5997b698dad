import { deflateSync } from 'node:zlib';
import { proto } from '@whiskeysockets/baileys';
import type { BinaryNode } from '@whiskeysockets/baileys';
import { stanzaId, unixNow } from '../network/network.js';
import type { Feature, Network } from '../network/network.js';
import type { Account, CompanionDevice } from '../network/model.js';
import { takeBundle, requireSession } from './prekeys.js';

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
  const { type, ciphertext } = await account.phone.encrypt(device.jid, message);
  const stanza: BinaryNode = {
    tag: 'message',
    // From the account's own phone without `recipient`: the companion takes it as its own (fromMe) peer traffic.
    attrs: { from: `${account.number}@s.whatsapp.net`, id: stanzaId().toUpperCase(), type: 'text', category: 'peer', t: unixNow() },
    content: [{ tag: 'enc', attrs: { v: '2', type }, content: ciphertext }],
  };
  network.deliver(device, stanza);
}

/**
 * `xmlns="w:sync:app:state"`: app-state collections. The simulator keeps no app state yet, so every
 * requested collection is answered at the version asked, with neither snapshot nor patches, which Baileys
 * (Utils/chat-utils.js extractSyncdPatches) takes as "up to date".
 */
export function appStateFeature(network: Network): Feature {
  return {
    iq: {
      'w:sync:app:state': (connection, iq) => {
        requireSession(network, connection);
        const sync = Array.isArray(iq.content) ? iq.content.find((n) => n.tag === 'sync') : undefined;
        const collections = Array.isArray(sync?.content) ? sync.content.filter((n) => n.tag === 'collection') : [];
        return [{ tag: 'sync', attrs: {}, content: collections.map((c) => ({ tag: 'collection', attrs: { name: c.attrs.name ?? '', version: c.attrs.version ?? '0' } })) }];
      },
    },
  };
}
