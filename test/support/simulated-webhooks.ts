import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { InstanceClient } from '@parley/client';
import { at, closeReceivers, startReceivers, urlsFor, type Receivers, type UrlKind } from './webhook-receivers.js';
import type { TestServer } from './test-server.js';

/** A native webhook body (docs/webhooks.md "native"). */
export interface NativeBody {
  id: string;
  type: string;
  instance: string;
  data: any;
}

/** Real HTTP receivers for every webhook URL field, started before the suite and closed after it. */
export function useWebhookReceivers(): { receivers: () => Receivers } {
  let receivers: Receivers | undefined;
  before(async () => {
    receivers = await startReceivers();
  });
  after(async () => {
    if (receivers) await closeReceivers(receivers);
  });
  return { receivers: () => receivers! };
}

/** Points an instance's webhooks, in the native format (or `both`: native, then meta), at the receivers under `path`. */
export async function nativeWebhooks(api: InstanceClient, receivers: Receivers, path: string, format: 'native' | 'both' = 'native'): Promise<void> {
  const put = await api.call('updateWebhookSettings', { body: { allowWebhook: true, allowNumber: 'all', webhookFormat: format, ...urlsFor(receivers, path) } });
  assert.equal(put.status, 200);
}

/** Waits until the receiver of `kind` got, under `path`, a native body `match` accepts; answers it. */
export function delivered(t: TestServer, receivers: Receivers, kind: UrlKind, path: string, match: (body: NativeBody) => boolean, what: string): Promise<NativeBody> {
  return t.waitFor(() => at(receivers[kind], path).map((r) => r.json as NativeBody).find(match), 20_000, what);
}
