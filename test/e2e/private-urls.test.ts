import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiErrorAnswer } from '../support/api-error.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/** The refusal of a URL on a private network tells the operator how to allow such URLs. */
describe('a server that refuses private network URLs (PARLEY_ALLOW_PRIVATE_URLS off)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ config: { allowPrivateUrls: false } });
  });
  after(() => t.stop());

  it('answers 400 naming PARLEY_ALLOW_PRIVATE_URLS for a local webhook URL, and keeps the settings', async () => {
    const api = t.client((await t.createInstance({ number: '5511940000001' })).key);
    const refusals = [
      { body: { webhookMessage: 'http://127.0.0.1:8080/hook' }, message: 'body.webhookMessage points to a private network address' },
      { body: { webhookGroup: 'http://localhost:3000/hook' }, message: 'body.webhookGroup points to a private network host' },
    ];
    for (const { body, message } of refusals) {
      await assert.rejects(api.call('updateWebhookSettings', { body }), apiErrorAnswer({
        status: 400,
        error: { code: 'validation_failed', message: `${message} (set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)`, details: undefined },
      }));
    }
    const { webhook } = (await api.call('getInstance')).instance;
    assert.equal(webhook.webhookMessage, '');
    assert.equal(webhook.webhookGroup, '');
  });
});
