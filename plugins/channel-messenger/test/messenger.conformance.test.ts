import { MemoryStorage } from '@parley/storage-memory';
import { describeMetaChannelConformance, testLink, useMockGraph } from '@parley/meta-graph/testing';
import { createMessengerDriver } from '../src/index.js';

describeMetaChannelConformance('messenger', {
  graph: useMockGraph(),
  createDriver: (graphBaseUrl) => createMessengerDriver({ graphBaseUrl, profileLookup: false }),
  storage: () => new MemoryStorage(),
  link: testLink('messenger', '106123456789012'),
  user: '7012345678901234',
  webhookObject: 'page',
  // Messenger names delivered messages and reads up to a watermark time; it also sends files.
  readBy: 'watermark',
  statuses: ['delivered', 'read'],
  inbound: ['text', 'image', 'audio', 'video', 'document', 'reaction'],
});
