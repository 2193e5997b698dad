import { readFileSync } from 'node:fs';
import type { ExtensionEventId, SpecEventId } from '@parley/testkit';
import type { MetaValue, MetaWebhookPayload } from '@parley/webhook-meta';

/** A webhook event id whose meta payload has a golden file. */
export type EventId = SpecEventId | ExtensionEventId;

// Golden files live in the meta plugin's source tree; the tests run from dist/test.
const goldenDir = new URL('../../../webhook-meta/test/golden/', import.meta.url);

/** The meta plugin's golden payload of an event id. */
export function golden(id: EventId): MetaWebhookPayload {
  return JSON.parse(readFileSync(new URL(`${id}.json`, goldenDir), 'utf8')) as MetaWebhookPayload;
}

/** A golden payload with its one `value` changed by `patch`. */
export function goldenWith(id: SpecEventId, patch: (value: MetaValue) => void): MetaWebhookPayload {
  const payload = golden(id);
  patch(payload.entry[0]!.changes[0]!.value);
  return payload;
}
