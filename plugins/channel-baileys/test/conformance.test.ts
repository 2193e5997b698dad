import { MemoryStorage } from '@parley/storage-memory';
import { describeChannelConformance, type LocalServer } from '@parley/testkit';
import { createBaileysDriver } from '../src/baileys.driver.js';
import { FakeSockets, WHATSAPP_RECORD_MEMBERS, type FakeSocket } from '../src/testing/index.js';
import { baileysFarSide } from './conformance-far-side.js';
import { instanceRecord, PEER, PEER_JID } from './harness.js';
import { sampleImages } from './images.js';
import { file, startWebHost } from './web-host.js';

/** Serves the catalog image product cards are built from (the Baileys channel fetches it, as WhatsApp's apps do). */
let imageHost: LocalServer<string> | undefined;

describeChannelConformance('whatsapp (Baileys)', {
  declares: {
    // Incoming calls can be rejected; Baileys places and accepts no calls.
    capabilities: ['connection', 'profile', 'messaging', 'chats', 'callReject', 'labels', 'contacts', 'groups', 'communities', 'catalog', 'status'],
    sends: WHATSAPP_RECORD_MEMBERS,
    contextMembers: ['messageContextInfo'],
    // Receipts from the peer; the server's ack (`sent`) is not a receipt.
    statuses: ['delivered', 'read'],
    inbound: ['text', 'image', 'audio', 'video', 'document', 'sticker', 'location', 'contacts', 'reaction'],
    peer: { to: PEER, chatJid: PEER_JID },
    echoesSends: false,
  },
  async start() {
    imageHost ??= await startWebHost({ '/mug.jpg': file('image/jpeg', (await sampleImages()).jpeg) });
    const imageUrl = `http://127.0.0.1:${imageHost.port}/mug.jpg`;
    const storage = new MemoryStorage();
    await storage.init();
    const sockets = new FakeSockets();
    return {
      driver: createBaileysDriver({
        random: () => 0, allowPrivateUrls: true,
        socketFactory: (config) => {
          const socket = sockets.factory(config) as FakeSocket;
          // The owner's catalog holds the product of the suite's product card (`prod-1`).
          socket.results.set('getCatalog', {
            products: [{
              id: 'prod-1', name: 'Mug', description: 'Stoneware', price: 49_900, currency: 'BRL', retailerId: 'sku-1', url: 'https://shop.example/mug',
              isHidden: false, imageUrls: { requested: imageUrl, original: imageUrl }, reviewStatus: {}, availability: 'in stock',
            }],
            nextPageCursor: undefined,
          });
          return socket;
        },
      }),
      storage,
      instance: instanceRecord(),
      farSide: baileysFarSide(sockets),
    };
  },
  async cleanup() {
    await imageHost?.close();
  },
});
