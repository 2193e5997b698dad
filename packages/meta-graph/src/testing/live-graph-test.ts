import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChannelDriver, ChannelName, Storage } from '@parley/core';
import { createDriverHarness, testInstance } from './driver-harness.js';

/** What {@link describeLiveGraphTest} needs from a Meta channel's package. */
export interface LiveGraphTestOptions {
  channel: ChannelName;
  /** The channel's driver with its defaults: the real Graph API. */
  createDriver(): ChannelDriver;
  /** A fresh storage for the adapter that sends (initialized here). */
  storage(): Storage;
}

/**
 * Declares a channel's opt-in test against the real Graph API, enabled by `PARLEY_LIVE_<CHANNEL>=1`
 * with `PARLEY_<CHANNEL>_ACCESS_TOKEN`, `_APP_SECRET` and `_ACCOUNT_ID`: it links the account with
 * the real token, and when `PARLEY_<CHANNEL>_TEST_RECIPIENT` is set (a user who messaged the
 * account in the last 24 hours) also sends that user a text. Without the switch it skips loudly.
 */
export function describeLiveGraphTest(options: LiveGraphTestOptions): void {
  const { channel } = options;
  const upper = channel.toUpperCase();
  const enabled = process.env[`PARLEY_LIVE_${upper}`] === '1';
  const env = (name: string): string | undefined => process.env[`PARLEY_${upper}_${name}`];

  describe(`${channel} live Graph API (opt-in)`, () => {
    it('links the account with the real token and sends a text when a recipient is set', async (t) => {
      if (!enabled) {
        console.warn(`${channel} live test skipped: set PARLEY_LIVE_${upper}=1 and the PARLEY_${upper}_* variables to run it`);
        t.skip(`PARLEY_LIVE_${upper} is not set`);
        return;
      }
      const input = { accessToken: env('ACCESS_TOKEN'), appSecret: env('APP_SECRET'), verifyToken: 'parley-live-test-token', accountId: env('ACCOUNT_ID') };
      for (const [field, value] of Object.entries(input)) assert.ok(value, `PARLEY_${upper}_* must provide ${field}`);
      const driver = options.createDriver();
      const link = await driver.link!(input);
      assert.equal(link.accountId, input.accountId);

      const recipient = env('TEST_RECIPIENT');
      if (!recipient) return;
      const storage = options.storage();
      await storage.init();
      const harness = createDriverHarness(driver, storage, [testInstance('ins_live', [link])]);
      const record = await (await harness.adapter('ins_live')).capabilities.messaging!.send({ to: recipient, content: { type: 'text', text: 'Parley live test' } });
      assert.equal(record.status, 'PENDING');
      assert.ok(record.key.id.length > 0);
      await harness.stop();
    });
  });
}
