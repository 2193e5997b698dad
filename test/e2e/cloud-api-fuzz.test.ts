import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CLOUD_VERSION, cloudRequest } from '../support/cloud-api.js';
import { isCloudRefusal, mutations, type Json } from '../support/json-mutations.js';
import { SAMPLES } from '../support/media-server.js';
import { MessagingPair } from '../support/messaging.js';

/**
 * Every one-member change of valid Cloud API bodies: the answer is a send result or the Cloud API's
 * error envelope (never a 5xx, never Parley's own envelope), and only the answers that accepted a send
 * sent a message.
 */
describe('Cloud API: one-member mutations of valid bodies', () => {
  let p: MessagingPair;
  const BOB = '5511900000852';

  before(async () => {
    p = await MessagingPair.start({}, ['5511900000851', BOB]);
    p.media.serve('/photo.jpg', { body: SAMPLES.jpeg, type: 'image/jpeg' });
  });
  after(async () => {
    await p.stop();
  });

  it('answers each with a send result or the Cloud API\'s error, and sends exactly the accepted ones', async () => {
    const bases: Json[] = [
      { messaging_product: 'whatsapp', to: BOB, type: 'text', text: { body: 'hi', preview_url: false } },
      { messaging_product: 'whatsapp', to: BOB, type: 'image', image: { link: `${p.media.url}/photo.jpg`, caption: 'c' } },
      { messaging_product: 'whatsapp', to: BOB, type: 'location', location: { latitude: 1, longitude: 2, name: 'n' } },
      { messaging_product: 'whatsapp', to: BOB, type: 'contacts', contacts: [{ name: { formatted_name: 'Ana' }, phones: [{ wa_id: '5511900000001' }] }] },
      { messaging_product: 'whatsapp', to: BOB, type: 'interactive', interactive: { type: 'button', body: { text: 'b' }, action: { buttons: [{ type: 'reply', reply: { id: 'y', title: 'Yes' } }] } } },
      { messaging_product: 'whatsapp', to: BOB, type: 'interactive', interactive: { type: 'list', body: { text: 'b' }, action: { button: 'B', sections: [{ rows: [{ id: 'r', title: 'R' }] }] } } },
      { messaging_product: 'whatsapp', status: 'read', message_id: 'unknown-id' },
    ];
    const cases = bases.flatMap((base) => mutations(base));
    assert.ok(cases.length > 300, `${cases.length} cases`);
    let accepted = 0;
    const wrong: string[] = [];
    for (const { what, body } of cases) {
      const res = await cloudRequest(p.t, p.alice.key, 'POST', `/${CLOUD_VERSION}/${p.alice.id}/messages`, body);
      if (res.status === 200) {
        if (res.body.messages?.[0]?.id) accepted++;
        else if (res.body.success !== true) wrong.push(`${what}: 200 ${JSON.stringify(res.body).slice(0, 200)}`);
        continue;
      }
      if (!isCloudRefusal(res)) wrong.push(`${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    }
    assert.deepEqual(wrong, []);
    await p.t.waitFor(() => p.t.events.filter((e) => e.type === 'message' && e.instance === p.bob.id).length >= accepted, 20_000, `${accepted} messages at bob`);
    await p.t.settle();
    assert.equal(p.t.events.filter((e) => e.type === 'message' && e.instance === p.bob.id).length, accepted);
  });
});
