import { after, describe } from './test-runner.js';
import { describeAuthStateCases } from './storage-auth-state.cases.js';
import { describeClaimCases } from './storage-claims.cases.js';
import { describeDeadLetterCountCases } from './storage-dead-letter-counts.cases.js';
import { describeDeliveryCases } from './storage-deliveries.cases.js';
import { describeDeliveryBatchCases } from './storage-delivery-batches.cases.js';
import { describeEventLogCases } from './storage-events.cases.js';
import type { OutboxHarness, RecordStoreHarness, StorageHarness } from './storage-harness.js';
import { describeIdempotencyCases } from './storage-idempotency.cases.js';
import { describeInstanceCases } from './storage-instances.cases.js';
import { describeLifecycleCases } from './storage-lifecycle.cases.js';
import { describeMessageCases } from './storage-messages.cases.js';
import { describeMessagePageCases } from './storage-message-pages.cases.js';
import { describeOutboundCases } from './storage-outbound.cases.js';
import { describeOutboxPersistenceCases, describeRecordPersistenceCases } from './storage-persistence.cases.js';
import { describeResourceCases } from './storage-resources.cases.js';
import { describeScanCases } from './storage-scans.cases.js';
import { describeStateCases } from './storage-state.cases.js';

export type { OutboxHarness, RecordStoreHarness, StorageHarness, StoreHarness } from './storage-harness.js';

/** The record store's cases, without the lifecycle's. */
function recordStoreCases(harness: RecordStoreHarness): void {
  describeInstanceCases(harness);
  describeClaimCases(harness);
  describeMessageCases(harness);
  describeMessagePageCases(harness);
  describeResourceCases(harness);
  describeAuthStateCases(harness);
  describeStateCases(harness);
  describeScanCases(harness);
  describeRecordPersistenceCases(harness);
}

/** The outbox's cases, without the lifecycle's. */
function outboxCases(harness: OutboxHarness): void {
  describeDeliveryCases(harness);
  describeDeliveryBatchCases(harness);
  describeDeadLetterCountCases(harness);
  describeIdempotencyCases(harness);
  describeEventLogCases(harness);
  describeOutboundCases(harness);
  describeOutboxPersistenceCases(harness);
}

/**
 * The conformance suite of a record store (`provides.records`): its lifecycle, every record
 * repository (instances with their unique claims, messages and their exact pages, chats, contacts,
 * media, auth state, plugin state), the enumerations `parley storage copy` reads, and — when the
 * harness can reopen — durability across close and reopen. Each test gets its own store from the
 * harness and its own random instance ids.
 *
 * @param label - back end name shown in the test report.
 * @param harness - how to create (and optionally reopen and clean up) the record store under test.
 */
export function describeRecordStoreConformance(label: string, harness: RecordStoreHarness): void {
  describe(`record store conformance: ${label}`, () => {
    after(async () => {
      await harness.cleanup?.();
    });
    describeLifecycleCases(harness);
    recordStoreCases(harness);
  });
}

/**
 * The conformance suite of an outbox (`provides.outbox`): its lifecycle, the delivery queue's lanes,
 * leases, retries, dead letters (with totals exact under every write) and statistics, the event log's
 * ordered pages and retention purges (and the events `deliveries.enqueue` logs in the same write), the
 * idempotency keys, the outbound send queue's lanes, leases, pause and bound, and — when the harness
 * can reopen — durability across close and reopen.
 *
 * @param label - back end name shown in the test report.
 * @param harness - how to create (and optionally reopen and clean up) the outbox under test.
 */
export function describeOutboxConformance(label: string, harness: OutboxHarness): void {
  describe(`outbox conformance: ${label}`, () => {
    after(async () => {
      await harness.cleanup?.();
    });
    describeLifecycleCases(harness);
    outboxCases(harness);
  });
}

/**
 * The conformance suite every storage back end providing both halves (`provides.storage`) runs: the
 * lifecycle once, then everything of {@link describeRecordStoreConformance} and of
 * {@link describeOutboxConformance} on the one back end.
 *
 * @param label - back end name shown in the test report.
 * @param harness - how to create (and optionally reopen and clean up) the back end under test.
 */
export function describeStorageConformance(label: string, harness: StorageHarness): void {
  describe(`storage conformance: ${label}`, () => {
    after(async () => {
      await harness.cleanup?.();
    });
    describeLifecycleCases(harness);
    recordStoreCases(harness);
    outboxCases(harness);
  });
}
