import type { InstanceRecord, SocialLink } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { describeChannelConformance, instanceRecord } from '@parley/testkit';
import { createTelegramDriver } from '../src/index.js';
import { MockBotApi } from '../src/testing/index.js';
import { telegramFarSide } from './conformance-far-side.js';

const BOT_ID = 7_100_001;
const SECRET = 'conformance_secret-0123';
const PEER = { id: 555_777, first_name: 'Peer', username: 'peer' };

let mock: MockBotApi | undefined;
/** The mock Bot API, started on first use and shared by the runs (each run gets its own bot). */
async function botApi(): Promise<MockBotApi> {
  mock ??= await MockBotApi.start();
  return mock;
}

function instance(link: SocialLink): InstanceRecord {
  return instanceRecord({ id: 'ins_conformance_tg', name: 'conformance', links: { telegram: link } });
}

describeChannelConformance('telegram', {
  declares: {
    capabilities: ['messaging'],
    sends: { text: 'extendedTextMessage', image: 'imageMessage', audio: 'audioMessage', video: 'videoMessage', document: 'documentMessage' },
    statuses: ['sent'],
    inbound: ['text', 'image', 'audio', 'video', 'document', 'location'],
    peer: { to: String(PEER.id), chatJid: String(PEER.id) },
    echoesSends: false,
    receivedMedia: { kind: 'document' },
  },
  async start(options) {
    const api = await botApi();
    const storage = new MemoryStorage();
    await storage.init();
    const token = api.addBot(BOT_ID, 'conformance_bot');
    const link: SocialLink = { channel: 'telegram', accountId: String(BOT_ID), accessToken: token, appSecret: SECRET, verifyToken: 'unused', linkedAt: 1_700_000_000_000 };
    return {
      driver: createTelegramDriver({ apiBaseUrl: api.url, timeoutMs: 5_000, publicUrl: () => 'http://127.0.0.1:1', ...(options?.media ? { media: options.media } : {}) }),
      storage,
      instance: instance(link),
      farSide: telegramFarSide({ mock: api, botId: BOT_ID, secret: SECRET, peer: PEER }),
    };
  },
  async cleanup() {
    await mock?.close();
  },
});
