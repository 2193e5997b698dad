import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createDriverHarness, testInstance } from '@parley/meta-graph/testing';
import { MemoryStorage } from '@parley/storage-memory';
import { createMessengerDriver } from '../src/index.js';

/**
 * Opt-in tests against the real Graph API: PARLEY_LIVE_MESSENGER=1 with PARLEY_MESSENGER_ACCESS_TOKEN,
 * PARLEY_MESSENGER_APP_SECRET and PARLEY_MESSENGER_ACCOUNT_ID; PARLEY_MESSENGER_TEST_RECIPIENT (a PSID that
 * messaged the account in the last 24 hours) also sends a text.
 */
const enabled = process.env.PARLEY_LIVE_MESSENGER === '1';
const env = (name: string): string | undefined => process.env[`PARLEY_MESSENGER_${name}`];

describe('messenger live Graph API (opt-in)', () => {
  it('links the account with the real token and sends a text when a recipient is set', async (t) => {
    if (!enabled) {
      console.warn('messenger live test skipped: set PARLEY_LIVE_MESSENGER=1 and the PARLEY_MESSENGER_* variables to run it');
      t.skip('PARLEY_LIVE_MESSENGER is not set');
      return;
    }
    const input = { accessToken: env('ACCESS_TOKEN'), appSecret: env('APP_SECRET'), verifyToken: 'parley-live-test-token', accountId: env('ACCOUNT_ID') };
    for (const [field, value] of Object.entries(input)) assert.ok(value, `PARLEY_MESSENGER_* must provide ${field}`);
    const driver = createMessengerDriver();
    const link = await driver.link!(input);
    assert.equal(link.accountId, input.accountId);

    const recipient = env('TEST_RECIPIENT');
    if (!recipient) return;
    const storage = new MemoryStorage();
    await storage.init();
    const harness = createDriverHarness(driver, storage, [testInstance('ins_live', [link])]);
    const record = await (await harness.adapter('ins_live')).capabilities.messaging!.send({ to: recipient, content: { type: 'text', text: 'Parley live test' } });
    assert.equal(record.status, 'PENDING');
    assert.ok(record.key.id.length > 0);
    await harness.stop();
  });
});
