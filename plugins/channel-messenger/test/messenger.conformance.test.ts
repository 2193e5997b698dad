import type { SocialLink } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { META_RECORD_MEMBERS, metaFarSide, testInstance, useMockGraph } from '@parley/meta-graph/testing';
import { describeChannelConformance } from '@parley/testkit';
import { createMessengerDriver } from '../src/index.js';

const USER = '7012345678901234';
const link: SocialLink = {
  channel: 'messenger', accountId: '106123456789012', accessToken: 'EAAGtestaccesstoken0000000000', appSecret: 'test-app-secret-0123456789abcdef',
  verifyToken: 'verify-token-messenger-1234', linkedAt: 1_700_000_000_000,
};
const graph = useMockGraph();

describeChannelConformance('messenger', {
  declares: {
    capabilities: ['messaging'],
    sends: META_RECORD_MEMBERS,
    // Messenger reports deliveries by mid and reads by watermark.
    statuses: ['delivered', 'read'],
    inbound: ['text', 'image', 'audio', 'video', 'document', 'reaction'],
    peer: { to: USER, chatJid: USER },
    echoesSends: false,
  },
  async start() {
    const storage = new MemoryStorage();
    await storage.init();
    return {
      driver: createMessengerDriver({ graphBaseUrl: graph.url, profileLookup: false }),
      storage,
      instance: testInstance('ins_conformance_fb', [link]),
      farSide: metaFarSide({ graph, link, user: USER, webhookObject: 'page', readBy: 'watermark' }),
    };
  },
});
