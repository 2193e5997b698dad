import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startHttpReceiver } from '@parley/testkit';
import { startTestServer } from '../support/test-server.js';

/**
 * Meta's subscription handshake (`POST /{key}/instance/webhook/verify`) goes through the same
 * private-network guard as deliveries: a webhook URL stored while private URLs were allowed is not
 * asked once the server refuses them, and bad bodies change and send nothing.
 */
describe('the webhook handshake and the private-network guard', () => {
  it('a receiver on a private address, stored before the server refused such URLs, is not asked: 400 saying why', async () => {
    const receiver = await startHttpReceiver();
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-hub-verify-'));
    try {
      const open = await startTestServer({ storage: 'sqlite', dataDir, config: { allowPrivateUrls: true } });
      const shop = await open.createInstance({ name: 'shop', webhook: { allowWebhook: true, webhookFormat: 'cloud-api', webhookMessage: `${receiver.url}/hook` } });
      receiver.respond((request) => ({ body: new URL(request.url, 'http://x').searchParams.get('hub.challenge') ?? '' }));
      assert.equal((await open.request('POST', `/${shop.key}/instance/webhook/verify`, { verifyToken: 'token-1' })).body.data.verified, true);
      await open.stop();
      const asked = receiver.requests.length;

      const strict = await startTestServer({ storage: 'sqlite', dataDir, config: { allowPrivateUrls: false } });
      try {
        const res = await strict.request('POST', `/${shop.key}/instance/webhook/verify`, { verifyToken: 'token-1' });
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.match(res.body.error.message, /^body\.url points to a private network address/);
        assert.equal(receiver.requests.length, asked, 'the receiver was not asked');
        // Bad bodies: refused naming the field, nothing asked.
        for (const [body, field] of [[{}, 'body.verifyToken'], [{ verifyToken: '' }, 'body.verifyToken'], [{ verifyToken: 'x', url: 5 }, 'body.url'], [{ verifyToken: 'x', extra: 1 }, 'body.extra']] as const) {
          const bad = await strict.request('POST', `/${shop.key}/instance/webhook/verify`, body);
          assert.equal(bad.status, 400, JSON.stringify(bad.body));
          assert.ok(JSON.stringify(bad.body.error).includes(field), `${JSON.stringify(body)}: ${JSON.stringify(bad.body.error)}`);
        }
        assert.equal(receiver.requests.length, asked);
      } finally {
        await strict.stop();
      }
    } finally {
      await receiver.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
