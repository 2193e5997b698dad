import { MemoryStorage } from '@parley/storage-memory';
import { describeMetaChannelConformance, testLink, useMockGraph } from '@parley/meta-graph/testing';
import { createInstagramDriver } from '../src/index.js';

describeMetaChannelConformance('instagram', {
  graph: useMockGraph(),
  createDriver: (graphBaseUrl) => createInstagramDriver({ graphBaseUrl, profileLookup: false }),
  storage: () => new MemoryStorage(),
  link: testLink('instagram', '17841405822304914'),
  user: '6543210987654321',
  webhookObject: 'instagram',
  // Instagram's read receipts name the message read; it sends no delivery receipts.
  readBy: 'mid',
  statuses: ['read'],
  inbound: ['text', 'image', 'audio', 'video', 'reaction'],
});
