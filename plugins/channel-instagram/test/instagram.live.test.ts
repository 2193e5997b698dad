import { describeLiveGraphTest } from '@parley/meta-graph/testing';
import { MemoryStorage } from '@parley/storage-memory';
import { createInstagramDriver } from '../src/index.js';

// PARLEY_INSTAGRAM_TEST_RECIPIENT is an IGSID.
describeLiveGraphTest({ channel: 'instagram', createDriver: () => createInstagramDriver(), storage: () => new MemoryStorage() });
