import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CLOUD_VERSION, cloudRequest } from '../support/cloud-api.js';
import { SAMPLES } from '../support/media-server.js';
import { MessagingPair } from '../support/messaging.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Values a member is replaced with: every JSON type, empty and oversized forms, odd text. */
const REPLACEMENTS: Json[] = [null, true, 0, -1, 1e308, '', 'x'.repeat(70_000), '👍\u0000\u202e', [], [{}], {}, { nested: { deep: [1] } }];

/** Every body made by changing one member of `body`: removed, replaced by each of {@link REPLACEMENTS}, or joined by an unknown one. */
function mutations(body: Json, path: string[] = []): { what: string; body: Json }[] {
  const out: { what: string; body: Json }[] = [];
  const at = (value: Json, what: string) => out.push({ what: `${path.join('.') || '(body)'} ${what}`, body: value });
  if (path.length === 0) at({ ...(body as object), unknown_member: 1 }, 'with an unknown member');
  if (body === null || typeof body !== 'object') return out;
  const entries = Array.isArray(body) ? body.map((v, i) => [String(i), v] as const) : Object.entries(body);
  for (const [key, value] of entries) {
    const without = Array.isArray(body) ? body.filter((_, i) => String(i) !== key) : Object.fromEntries(Object.entries(body).filter(([k]) => k !== key));
    out.push({ what: `${[...path, key].join('.')} removed`, body: without as Json });
    for (const replacement of REPLACEMENTS) {
      const changed = Array.isArray(body) ? body.map((v, i) => (String(i) === key ? replacement : v)) : { ...body, [key]: replacement };
      out.push({ what: `${[...path, key].join('.')} = ${JSON.stringify(replacement).slice(0, 20)}`, body: changed as Json });
    }
    for (const nested of mutations(value, [...path, key])) {
      const replaced = Array.isArray(body) ? body.map((v, i) => (String(i) === key ? nested.body : v)) : { ...body, [key]: nested.body };
      out.push({ what: nested.what, body: replaced as Json });
    }
  }
  return out;
}

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
      const error = res.body?.error;
      const envelope = res.status >= 400 && res.status < 500 && Object.keys(res.body).length === 1 && Number.isInteger(error?.code)
        && typeof error.message === 'string' && typeof error.fbtrace_id === 'string' && typeof error.error_data?.details === 'string';
      if (!envelope) wrong.push(`${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    }
    assert.deepEqual(wrong, []);
    await p.t.waitFor(() => p.t.events.filter((e) => e.type === 'message' && e.instance === p.bob.id).length >= accepted, 20_000, `${accepted} messages at bob`);
    await p.t.settle();
    assert.equal(p.t.events.filter((e) => e.type === 'message' && e.instance === p.bob.id).length, accepted);
  });
});
