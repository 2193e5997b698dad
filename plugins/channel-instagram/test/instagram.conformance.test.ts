import { MemoryStorage } from '@parley/storage-memory';
import { describeMetaChannelConformance } from '@parley/meta-graph/testing';
import { createInstagramDriver, instagramProfile } from '../src/index.js';

const driver = (graphBaseUrl: string) => createInstagramDriver({ graphBaseUrl, profileLookup: false });
describeMetaChannelConformance(instagramProfile, driver, () => new MemoryStorage(), { account: '17841405822304914', user: '6543210987654321' });
