import { describeStorageConformance } from '@parley/testkit';
import { MemoryStorage } from '../src/index.js';

describeStorageConformance('memory', {
  create: async (clock) => new MemoryStorage(clock),
});
