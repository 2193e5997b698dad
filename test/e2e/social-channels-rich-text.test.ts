import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { MockGraph } from '@parley/meta-graph/testing';
import { IG_USER, SENT_MID, SocialServer } from '../support/social-server.js';
import type { TestServer } from '../support/test-server.js';

// What the richer text members do on the Meta channels (docs/rest-api.md, "Richer text sends").
describe('mentions, linkPreview and quoted on Instagram', () => {
  const s = new SocialServer('memory');
  let t: TestServer;
  let igGraph: MockGraph;
  before(() => ({ t, igGraph } = s));

  it('mentions answer 422 and send nothing; linkPreview is accepted and nothing is fetched (the app previews links itself)', async () => {
    const shop = await s.instance('ig-rich');
    await s.linkInstagram(shop.key);
    igGraph.on('POST', '/v26.0/me/messages', { status: 200, body: { recipient_id: IG_USER, message_id: SENT_MID } });
    const refused = await t.request('POST', `/${shop.key}/message/text`, { to: IG_USER, text: 'hi @someone', provider: 'instagram', mentions: ['5511999990000'] });
    assert.equal(refused.status, 422);
    assert.equal(refused.body.error.code, 'capability_not_supported');
    assert.match(refused.body.error.message, /mentions/);
    assert.equal(igGraph.requests.length, 0);

    // A private link: a WhatsApp channel would fetch it (and this host allows it); here nothing is fetched at all.
    const text = 'see http://127.0.0.1:9/never-fetched';
    const sent = await t.request('POST', `/${shop.key}/message/text`, { to: IG_USER, text, provider: 'instagram', linkPreview: true });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.deepStrictEqual(igGraph.requests.map((r) => r.json), [{ recipient: { id: IG_USER }, message: { text } }]);
  });
});
