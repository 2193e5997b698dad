import { outboxOf, recordStoreOf } from '@parley/core';
import { describeOutboxConformance, describeRecordStoreConformance } from '@parley/testkit';
import { MemoryStorage } from '../src/index.js';

// Each half on its own entry point, through views that carry nothing of the other half: a back end
// providing only one half (provides.records or provides.outbox) runs exactly these.
describeRecordStoreConformance('memory records', {
  create: async (clock) => recordStoreOf(new MemoryStorage(clock)),
});

describeOutboxConformance('memory outbox', {
  create: async (clock) => outboxOf(new MemoryStorage(clock)),
});
