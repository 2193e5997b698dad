import { MemoryStorage } from '@parley/storage-memory';
import { describeMetaChannelConformance, useMockGraph } from '@parley/meta-graph/testing';
import { createMessengerDriver } from '../src/index.js';

describeMetaChannelConformance('messenger', {
  graph: useMockGraph(),
  createDriver: (graphBaseUrl) => createMessengerDriver({ graphBaseUrl, profileLookup: false }),
  storage: () => new MemoryStorage(),
  link: {
    channel: 'messenger', accountId: '106123456789012', accessToken: 'EAAGtestaccesstoken0000000000', appSecret: 'test-app-secret-0123456789abcdef',
    verifyToken: 'verify-token-messenger-1234', linkedAt: 1_700_000_000_000,
  },
  user: '7012345678901234',
  webhookObject: 'page',
  // Messenger names delivered messages and reads up to a watermark time; it also sends files.
  readBy: 'watermark',
  statuses: ['delivered', 'read'],
  inbound: ['text', 'image', 'audio', 'video', 'document', 'reaction'],
});
