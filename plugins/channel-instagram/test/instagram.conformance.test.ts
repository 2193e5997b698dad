import { MemoryStorage } from '@parley/storage-memory';
import { describeMetaChannelConformance, useMockGraph } from '@parley/meta-graph/testing';
import { createInstagramDriver } from '../src/index.js';

describeMetaChannelConformance('instagram', {
  graph: useMockGraph(),
  createDriver: (graphBaseUrl) => createInstagramDriver({ graphBaseUrl, profileLookup: false }),
  storage: () => new MemoryStorage(),
  link: {
    channel: 'instagram', accountId: '17841405822304914', accessToken: 'EAAGtestaccesstoken0000000000', appSecret: 'test-app-secret-0123456789abcdef',
    verifyToken: 'verify-token-instagram-1234', linkedAt: 1_700_000_000_000,
  },
  user: '6543210987654321',
  webhookObject: 'instagram',
  // Instagram's read receipts name the message read; it sends no delivery receipts.
  readBy: 'mid',
  statuses: ['read'],
  inbound: ['text', 'image', 'audio', 'video', 'reaction'],
});
