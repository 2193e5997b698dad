import { describeLiveGraphTest } from '@parley/meta-graph/testing';
import { MemoryStorage } from '@parley/storage-memory';
import { createMessengerDriver } from '../src/index.js';

// PARLEY_MESSENGER_TEST_RECIPIENT is a PSID.
describeLiveGraphTest({ channel: 'messenger', createDriver: () => createMessengerDriver(), storage: () => new MemoryStorage() });
