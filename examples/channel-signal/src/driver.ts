import { ValidationError, type ChannelDriver, type DriverRequest, type DriverResponse, type DriverRoute } from '@parley/core';
import { normalizeSignalAddress, SIGNAL_ADDRESSING } from './addressing.js';
import { SignalAdapter } from './adapter.js';
import { SignalNetworkApi } from './network-api.js';

/** Options of {@link createSignalDriver}. */
export interface SignalDriverOptions {
  /** The network's HTTP API (a local mock in tests). */
  apiBaseUrl: string;
  timeoutMs: number;
}

/** `POST /signal/receive/:instanceId`: the network pushes what reached the instance's account (admin token: the network runs on the operator's side). */
function receiveRoute(): DriverRoute {
  return {
    method: 'post', path: '/receive/:instanceId', admin: true, summary: 'Messages and receipts the Signal network pushes to an instance\'s account',
    body: {
      type: 'object', required: ['account', 'envelope'],
      properties: {
        account: { type: 'string', maxLength: 64 },
        envelope: { type: 'object', required: ['source', 'timestamp'], properties: { source: { type: 'string', maxLength: 64 }, timestamp: { type: 'integer', minimum: 0 } } },
      },
    },
    response: { type: 'object', properties: { received: { type: 'integer' } }, required: ['received'] },
    errors: [404],
    async handler(request: DriverRequest): Promise<DriverResponse> {
      return { status: 200, body: { received: await request.ingest(request.params.instanceId!, request.body) } };
    },
  };
}

/**
 * The `signal` driver: a MAIN channel (an instance is one Signal account, named by its `account`
 * option at creation) whose addresses are account UUIDs and group ids, declared by
 * {@link SIGNAL_ADDRESSING}, so the server normalizes and checks every `to` the way this channel
 * reads it.
 */
export function createSignalDriver(options: SignalDriverOptions): ChannelDriver {
  const api = new SignalNetworkApi(options.apiBaseUrl.replace(/\/+$/, ''), options.timeoutMs);
  return {
    name: 'signal',
    channel: 'signal',
    role: 'main',
    addressing: SIGNAL_ADDRESSING,
    create: (context) => new SignalAdapter(context, api),
    instanceOptions(input) {
      if (typeof input.account !== 'string') throw new ValidationError('account is required: the Signal account UUID of the instance', { field: 'account' });
      const account = normalizeSignalAddress(input.account, 'account');
      if (SIGNAL_ADDRESSING.kind!(account) !== 'person') throw new ValidationError('account must be an account UUID, not a group', { field: 'account' });
      return { account };
    },
    uniqueOptions: ['account'],
    routes: [receiveRoute()],
  };
}
