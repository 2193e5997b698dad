import { after, describe } from './test-runner.js';
import { describeAuthStateCases } from './storage-auth-state.cases.js';
import { describeClaimCases } from './storage-claims.cases.js';
import { describeDeadLetterCountCases } from './storage-dead-letter-counts.cases.js';
import { describeDeliveryCases } from './storage-deliveries.cases.js';
import { describeDeliveryBatchCases } from './storage-delivery-batches.cases.js';
import { describeEventLogCases } from './storage-events.cases.js';
import type { StorageHarness } from './storage-harness.js';
import { describeIdempotencyCases } from './storage-idempotency.cases.js';
import { describeInstanceCases } from './storage-instances.cases.js';
import { describeLifecycleCases } from './storage-lifecycle.cases.js';
import { describeMessageCases } from './storage-messages.cases.js';
import { describeMessagePageCases } from './storage-message-pages.cases.js';
import { describeOutboundCases } from './storage-outbound.cases.js';
import { describePersistenceCases } from './storage-persistence.cases.js';
import { describeResourceCases } from './storage-resources.cases.js';
import { describeScanCases } from './storage-scans.cases.js';
import { describeStateCases } from './storage-state.cases.js';

export type { StorageHarness } from './storage-harness.js';

/**
 * The conformance suite every storage back end runs: every repository of the Storage contract (with
 * the instances' unique claims), message pages whose totals and contents stay exact under every write, the delivery queue's lanes, leases, retries, dead letters (with totals exact under every write) and
 * statistics, the event log's ordered pages and retention purges, the idempotency keys, the outbound
 * send queue's lanes, leases, pause and bound, the enumerations `parley storage copy` reads, and — when the harness can
 * reopen — durability across close and reopen. Each test gets its own storage from the harness and
 * its own random instance ids.
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
    describeInstanceCases(harness);
    describeClaimCases(harness);
    describeMessageCases(harness);
    describeMessagePageCases(harness);
    describeResourceCases(harness);
    describeAuthStateCases(harness);
    describeStateCases(harness);
    describeScanCases(harness);
    describeDeliveryCases(harness);
    describeDeliveryBatchCases(harness);
    describeDeadLetterCountCases(harness);
    describeIdempotencyCases(harness);
    describeEventLogCases(harness);
    describeOutboundCases(harness);
    describePersistenceCases(harness);
  });
}
