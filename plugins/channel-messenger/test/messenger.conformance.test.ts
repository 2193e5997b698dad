import { MemoryStorage } from '@parley/storage-memory';
import { describeMetaChannelConformance } from '@parley/meta-graph/testing';
import { createMessengerDriver, messengerProfile } from '../src/index.js';

const driver = (graphBaseUrl: string) => createMessengerDriver({ graphBaseUrl, profileLookup: false });
describeMetaChannelConformance(messengerProfile, driver, () => new MemoryStorage(), { account: '106123456789012', user: '7012345678901234' });
