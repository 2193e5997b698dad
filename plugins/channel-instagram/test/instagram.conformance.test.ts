import type { SocialLink } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { META_RECORD_MEMBERS, metaFarSide, testInstance, useMockGraph } from '@parley/meta-graph/testing';
import { describeChannelConformance } from '@parley/testkit';
import { createInstagramDriver } from '../src/index.js';

const USER = '6543210987654321';
const link: SocialLink = {
  channel: 'instagram', accountId: '17841405822304914', accessToken: 'EAAGtestaccesstoken0000000000', appSecret: 'test-app-secret-0123456789abcdef',
  verifyToken: 'verify-token-instagram-1234', linkedAt: 1_700_000_000_000,
};
const graph = useMockGraph();

describeChannelConformance('instagram', {
  declares: {
    capabilities: ['messaging'],
    sends: META_RECORD_MEMBERS,
    // Instagram reports reads of a named message; it sends no delivery receipts.
    statuses: ['read'],
    inbound: ['text', 'image', 'audio', 'video', 'reaction'],
    peer: { to: USER, chatJid: USER },
    echoesSends: false,
  },
  async start() {
    const storage = new MemoryStorage();
    await storage.init();
    return {
      driver: createInstagramDriver({ graphBaseUrl: graph.url, profileLookup: false }),
      storage,
      instance: testInstance('ins_conformance_ig', [link]),
      farSide: metaFarSide({ graph, link, user: USER, webhookObject: 'instagram', readBy: 'mid' }),
    };
  },
});
