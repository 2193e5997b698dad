import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CLOUD_VERSION, cloudRequest } from '../support/cloud-api.js';
import { isCloudRefusal, mutations, type Json } from '../support/json-mutations.js';
import { MessagingPair } from '../support/messaging.js';

/**
 * The Cloud API's other bodies under every one-member change: template creates, template sends and
 * business profile updates answer a success or the Cloud API's error envelope (never a 5xx, never
 * Parley's own envelope), and only the accepted ones store, send or change anything.
 */
describe('Cloud API: one-member mutations of template and profile bodies', () => {
  let p: MessagingPair;
  const BOB = '5511900000862';
  const path = (what: string) => `/${CLOUD_VERSION}/${p.alice.id}/${what}`;

  before(async () => {
    p = await MessagingPair.start({}, ['5511900000861', BOB]);
  });
  after(async () => {
    await p.stop();
  });

  it('template creates: each is created under its own name or refused, and only the created ones are listed', async () => {
    const bases: Json[] = [
      {
        name: 'fuzzed', language: 'en_US', category: 'MARKETING', components: [
          { type: 'HEADER', format: 'TEXT', text: 'Sale {{1}}', example: { header_text: ['now'] } },
          { type: 'BODY', text: 'Hi {{1}}, {{2}} off', example: { body_text: [['Ana', '25%']] } },
          { type: 'FOOTER', text: 'Parley store' },
          { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Stop' }, { type: 'QUICK_REPLY', text: 'More' }] },
        ],
      },
      { name: 'fuzzed', language: 'pt_BR', category: 'UTILITY', parameter_format: 'NAMED', components: [{ type: 'BODY', text: 'Pedido {{order}}' }, { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Ver', url: 'https://example.com/o/{{1}}' }] }] },
    ];
    const cases = bases.flatMap((base) => mutations(base));
    assert.ok(cases.length > 200, `${cases.length} cases`);
    let created = 0;
    const wrong: string[] = [];
    for (const [i, { what, body }] of cases.entries()) {
      // Each case its own name (unless the change is to the name), so that no accepted create makes the next a duplicate.
      const named = body !== null && typeof body === 'object' && !Array.isArray(body) && body.name === 'fuzzed' ? { ...body, name: `fuzzed_${i}` } : body;
      const res = await cloudRequest(p.t, p.alice.key, 'POST', path('message_templates'), named);
      if (res.status === 200 && res.body.status === 'APPROVED') created++;
      else if (!isCloudRefusal(res)) wrong.push(`${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    }
    assert.deepEqual(wrong, []);
    assert.ok(created > 10 && created < cases.length, `${created} of ${cases.length} created`);
    const listed = (await cloudRequest(p.t, p.alice.key, 'GET', `${path('message_templates')}?limit=9999`)).body.data as { name: string }[];
    assert.equal(listed.filter((t) => t.name.startsWith('fuzzed')).length, created);
  });

  it('template sends: each sends the rendered template or is refused, and exactly the accepted ones arrive', async () => {
    assert.equal((await p.t.admin('PUT', '/admin/cloud-api/templates/fuzz_send/en', { header: 'Order {{1}}', body: 'Hi {{1}}, order {{2}} shipped', buttons: [{ type: 'quick_reply', text: 'Thanks' }] })).status, 200);
    const base: Json = {
      messaging_product: 'whatsapp', to: BOB, type: 'template', template: {
        name: 'fuzz_send', language: { code: 'en' }, components: [
          { type: 'header', parameters: [{ type: 'text', text: '4711' }] },
          { type: 'body', parameters: [{ type: 'text', text: 'Ana' }, { type: 'text', text: '4711' }] },
          { type: 'button', sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'THANKS' }] },
        ],
      },
    };
    const cases = mutations(base);
    let accepted = 0;
    const wrong: string[] = [];
    for (const { what, body } of cases) {
      const res = await cloudRequest(p.t, p.alice.key, 'POST', path('messages'), body);
      if (res.status === 200 && res.body.messages?.[0]?.id) accepted++;
      else if (!isCloudRefusal(res)) wrong.push(`${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    }
    assert.deepEqual(wrong, []);
    assert.ok(accepted > 5 && accepted < cases.length, `${accepted} of ${cases.length} sent`);
    const atBob = () => p.t.events.filter((e) => e.type === 'message' && e.instance === p.bob.id).length;
    await p.t.waitFor(() => atBob() >= accepted, 20_000, `${accepted} messages at bob`);
    await p.t.settle();
    assert.equal(atBob(), accepted);
  });

  it('business profile updates: each sets about or is refused, and a refused one changes nothing', async () => {
    const cases = mutations({ messaging_product: 'whatsapp', about: 'Open 9am to 6pm' });
    const wrong: string[] = [];
    let about: string | undefined;
    for (const { what, body } of cases) {
      const res = await cloudRequest(p.t, p.alice.key, 'POST', path('whatsapp_business_profile'), body);
      if (res.status === 200 && res.body.success === true) about = (body as { about?: string }).about ?? about;
      else if (!isCloudRefusal(res)) wrong.push(`${what}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    }
    assert.deepEqual(wrong, []);
    assert.ok(about, 'an update was accepted');
    const seen = await p.t.client(p.bob.key).call('getContactStatus', { params: { number: p.alice.number } });
    assert.equal((seen.data as { status: string | null }).status, about, JSON.stringify(seen));
  });
});
