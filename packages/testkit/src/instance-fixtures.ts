import { randomBytes } from 'node:crypto';
import { defaultInstanceFlags, defaultWebhookSettings, type InstanceRecord } from '@parley/core';

/**
 * A new instance record as the server creates one, for a channel or storage test: a fresh id and API key,
 * default flags and webhook settings, no user, not connected, no links, no proxy.
 * `overrides` replaces whole members, for example `{ driver: 'signal', driverOptions: { account } }`
 * or `{ links: { telegram: link } }`.
 */
export function instanceRecord(overrides: Partial<InstanceRecord> = {}): InstanceRecord {
  const id = overrides.id ?? `ins_${randomBytes(6).toString('hex')}`;
  return {
    id,
    key: `key_${randomBytes(16).toString('base64url')}`,
    name: 'test instance',
    driver: 'sandbox',
    createdAt: 1_700_000_000_000,
    flags: defaultInstanceFlags(),
    webhook: defaultWebhookSettings(),
    webhookSecret: `whsec_${id}`,
    user: null,
    phoneConnected: false,
    wantsConnection: false,
    health: 'healthy',
    driverOptions: {},
    links: {},
    ...overrides,
  };
}
