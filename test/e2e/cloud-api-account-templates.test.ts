import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as M from 'whatsapp-api-js/messages';
import { CLOUD_VERSION, cloudClient, cloudRequest } from '../support/cloud-api.js';
import { MessagingPair } from '../support/messaging.js';

/**
 * A business account's own templates on the Graph paths (docs/cloud-api.md): created, listed and
 * deleted as Meta documents them with the instance key, sent before the server-wide ones.
 */
describe('Cloud API: a business account\'s templates', () => {
  let p: MessagingPair;
  const BOB = '5511900000912';
  const templates = (id = p.alice.id) => `/${CLOUD_VERSION}/${id}/message_templates`;
  const create = (body: unknown, key = p.alice.key, id = p.alice.id) => cloudRequest(p.t, key, 'POST', templates(id), body);
  const list = async (query = '', key = p.alice.key, id = p.alice.id) => {
    const res = await cloudRequest(p.t, key, 'GET', `${templates(id)}${query}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as { data: any[]; paging: any };
  };
  const names = async (key = p.alice.key, id = p.alice.id) => (await list('?limit=1000', key, id)).data.map((t) => `${t.name}:${t.language}`);
  /** Sends a template through whatsapp-api-js and answers what bob received (or the Cloud API error). */
  const send = async (template: M.Template, from = p.alice) => {
    const sent = await cloudClient(p.t, from.key).sendMessage(from.id, from === p.alice ? BOB : p.alice.number, template) as any;
    if (sent.error) return sent;
    return (await p.received(sent.messages[0].id, from === p.alice ? p.bob : p.alice)).message.content;
  };
  /** What alice's side stored of a sent message, as text (buttons arrive at bob as a message the sandbox does not render). */
  const storedText = async (id: string) => {
    await p.t.settle();
    return JSON.stringify((await p.t.client(p.alice.key).call('getMessage', { params: { messageId: id } })).data.message);
  };
  const body = (text: string, extra: Record<string, unknown>[] = []) => [{ type: 'BODY', text }, ...extra];

  before(async () => {
    p = await MessagingPair.start({}, ['5511900000911', BOB]);
  });
  after(async () => {
    await p.stop();
  });

  it('creates a template as Meta documents the request, lists it with its id and category, and sends it', async () => {
    const made = await create({
      name: 'seasonal_promotion', language: 'en_US', category: 'MARKETING',
      components: [
        { type: 'HEADER', format: 'TEXT', text: 'Our {{1}} is on!', example: { header_text: ['Summer Sale'] } },
        { type: 'BODY', text: 'Shop now through {{1}} and use code {{2}} to get {{3}} off of all merchandise.', example: { body_text: [['the end of August', '25OFF', '25%']] } },
        { type: 'FOOTER', text: 'Use the buttons below to manage your marketing subscriptions' },
        { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Unsubscribe from Promos' }, { type: 'QUICK_REPLY', text: 'Unsubscribe from All' }] },
      ],
    });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    assert.deepEqual(made.body, { id: made.body.id, status: 'APPROVED', category: 'MARKETING' });
    assert.match(made.body.id, /^[0-9]{15,16}$/);
    const listed = (await list()).data.find((t) => t.name === 'seasonal_promotion');
    assert.deepEqual(listed, {
      id: made.body.id, name: 'seasonal_promotion', language: 'en_US', status: 'APPROVED', category: 'MARKETING',
      components: [
        { type: 'HEADER', format: 'TEXT', text: 'Our {{1}} is on!' },
        { type: 'BODY', text: 'Shop now through {{1}} and use code {{2}} to get {{3}} off of all merchandise.' },
        { type: 'FOOTER', text: 'Use the buttons below to manage your marketing subscriptions' },
        { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Unsubscribe from Promos' }, { type: 'QUICK_REPLY', text: 'Unsubscribe from All' }] },
      ],
    });
    const sent = await cloudClient(p.t, p.alice.key).sendMessage(p.alice.id, BOB, new M.Template('seasonal_promotion', 'en_US', new M.HeaderComponent(new M.HeaderParameter('Summer Sale')),
      new M.BodyComponent(new M.BodyParameter('the end of August'), new M.BodyParameter('25OFF'), new M.BodyParameter('25%')))) as any;
    const text = await storedText(sent.messages[0].id);
    for (const part of ['Our Summer Sale is on!', 'Shop now through the end of August and use code 25OFF to get 25% off of all merchandise.', 'Unsubscribe from All']) {
      assert.ok(text.includes(part), `${part} in ${text}`);
    }
    // Lower-case kinds (as some clients write them) and named parameters.
    const named = await create({ name: 'named_hello', language: 'en', category: 'utility', parameter_format: 'named', components: [{ type: 'body', text: 'Hi {{first_name}}!', example: { body_text_named_params: [{ param_name: 'first_name', example: 'Ana' }] } }] });
    assert.equal(named.status, 200, JSON.stringify(named.body));
    assert.equal(named.body.category, 'UTILITY');
    assert.deepEqual(await send(new M.Template('named_hello', 'en', new M.BodyComponent(new M.BodyParameter('Ana', 'first_name')))), { type: 'text', body: 'Hi Ana!' });
  });

  it('fills placeholders with currency and date_time parameters by their fallback_value, as the Cloud API does', async () => {
    const made = await create({ name: 'order_total', language: 'pt_BR', category: 'UTILITY', components: body('Seu pedido de {{1}} chega em {{2}}.', [{ type: 'FOOTER', text: 'Obrigado!' }]) });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const template = new M.Template('order_total', 'pt_BR', new M.BodyComponent(new M.BodyParameter(new M.Currency(125_500, 'BRL', 'R$ 125,50')), new M.BodyParameter(new M.DateTime('sexta-feira, 5 de junho'))));
    assert.deepEqual(await send(template), { type: 'text', body: 'Seu pedido de R$ 125,50 chega em sexta-feira, 5 de junho.\n\nObrigado!' });
    // A currency without its fallback is the Cloud API's invalid parameter, naming the member.
    const raw = await cloudRequest(p.t, p.alice.key, 'POST', `/${CLOUD_VERSION}/${p.alice.id}/messages`, {
      messaging_product: 'whatsapp', to: BOB, type: 'template',
      template: { name: 'order_total', language: { code: 'pt_BR' }, components: [{ type: 'body', parameters: [{ type: 'currency', currency: { code: 'BRL', amount_1000: 1000 } }, { type: 'text', text: 'amanhã' }] }] },
    });
    assert.equal(raw.status, 400);
    assert.equal((raw.body as { error: { code: number } }).error.code, 100);
    assert.match(JSON.stringify(raw.body), /fallback_value/);
  });

  it('sends the instance\'s own template before a server-wide one of the same name and language; another instance gets the server-wide one', async () => {
    assert.equal((await p.t.admin('PUT', '/admin/cloud-api/templates/welcome/en', { body: 'Welcome from the operator' })).status, 200);
    assert.equal((await p.t.admin('PUT', '/admin/cloud-api/templates/operator_only/en', { body: 'Only the operator\'s' })).status, 200);
    assert.equal((await create({ name: 'welcome', language: 'en', category: 'UTILITY', components: body('Welcome from alice\'s shop') })).status, 200);
    assert.deepEqual(await send(new M.Template('welcome', 'en')), { type: 'text', body: 'Welcome from alice\'s shop' });
    assert.deepEqual(await send(new M.Template('welcome', 'en'), p.bob), { type: 'text', body: 'Welcome from the operator' });
    assert.deepEqual(await send(new M.Template('operator_only', 'en')), { type: 'text', body: 'Only the operator\'s' });
    // Alice's list shows her welcome (not the operator's) and the operator's other template; bob's none of alice's.
    const alice = (await list('?name=welcome')).data;
    assert.deepEqual(alice.map((t) => [t.name, t.components[0].text]), [['welcome', 'Welcome from alice\'s shop']]);
    assert.ok((await names()).includes('operator_only:en'));
    const bobs = await names(p.bob.key, p.bob.id);
    assert.ok(!bobs.includes('seasonal_promotion:en_US') && bobs.includes('welcome:en'), bobs.join());
    const notBobs = await send(new M.Template('seasonal_promotion', 'en_US'), p.bob);
    assert.equal(notBobs.error.code, 132001);
  });

  it('refuses bad templates with the Cloud API\'s error naming the field, and stores nothing', async () => {
    const before = await names();
    const bad: [unknown, string, number?][] = [
      [{ name: 'no_body', language: 'en', category: 'UTILITY', components: [{ type: 'FOOTER', text: 'x' }] }, 'body.components needs a BODY component'],
      [{ name: 'image_header', language: 'en', category: 'MARKETING', components: [{ type: 'HEADER', format: 'IMAGE', example: { header_handle: ['4::aW1hZ2U='] } }, ...body('Hi')] }, 'body.components[0].format IMAGE is not supported'],
      [{ name: 'call_button', language: 'en', category: 'UTILITY', components: [...body('Hi'), { type: 'BUTTONS', buttons: [{ type: 'PHONE_NUMBER', text: 'Call', phone_number: '15550051310' }] }] }, 'body.components[1].buttons[0].type PHONE_NUMBER is not supported'],
      [{ name: 'two_bodies', language: 'en', category: 'UTILITY', components: [...body('Hi'), ...body('Ho')] }, 'body.components[1].type repeats BODY'],
      [{ name: 'gaps', language: 'en', category: 'UTILITY', components: body('Hi {{1}} {{3}}') }, 'body.components[0].text must number its placeholders {{1}} to {{2}} without gaps'],
      [{ name: 'mixed_buttons', language: 'en', category: 'UTILITY', components: [...body('Hi'), { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Yes' }, { type: 'URL', text: 'Go', url: 'https://example.com' }] }] }, 'body.components[1].buttons must be all quick_reply or all url'],
      [{ name: 'no_url', language: 'en', category: 'UTILITY', components: [...body('Hi'), { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Go' }] }] }, 'body.components[1].buttons[0].url is required for a url button'],
      [{ name: 'long_header', language: 'en', category: 'UTILITY', components: [{ type: 'HEADER', format: 'TEXT', text: 'x'.repeat(61) }, ...body('Hi')] }, 'body.components[0].text must NOT have more than 60 characters'],
      [{ name: 'Bad-Name', language: 'en', category: 'UTILITY', components: body('Hi') }, 'body.name'],
      [{ name: 'bad_category', language: 'en', category: 'PROMOTIONAL', components: body('Hi') }, 'body.category'],
      [{ name: 'no_language', category: 'UTILITY', components: body('Hi') }, 'body.language'],
      [{ name: 'seasonal_promotion', language: 'en_US', category: 'MARKETING', components: body('Again') }, 'template seasonal_promotion in en_US exists already', 2388024],
    ];
    for (const [request, details, subcode] of bad) {
      const res = await create(request);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 100, JSON.stringify(res.body));
      assert.equal(res.body.error.error_subcode, subcode);
      assert.ok(res.body.error.error_data.details.includes(details), `${details}: ${res.body.error.error_data.details}`);
    }
    const foreign = await create({ name: 'foreign', language: 'en', category: 'UTILITY', components: body('Hi') }, p.bob.key, p.alice.id);
    assert.deepEqual([foreign.status, foreign.body.error.code, foreign.body.error.error_subcode], [400, 100, 33]);
    const noToken = await create({ name: 'no_token', language: 'en', category: 'UTILITY', components: body('Hi') }, 'wrong-key');
    assert.deepEqual([noToken.status, noToken.body.error.code], [401, 190]);
    assert.deepEqual(await names(), before);
    assert.deepEqual(await names(p.bob.key, p.bob.id), (await names(p.bob.key, p.bob.id)).filter((n) => n !== 'foreign:en'));
  });

  it('deletes every language of a name, or one by hsm_id, as Meta documents; server-wide templates only through the admin API', async () => {
    const ids: Record<string, string> = {};
    for (const language of ['en', 'pt_BR', 'es']) {
      const made = await create({ name: 'bye', language, category: 'UTILITY', components: body(`bye in ${language}`) });
      assert.equal(made.status, 200, JSON.stringify(made.body));
      ids[language] = made.body.id;
    }
    const one = await cloudRequest(p.t, p.alice.key, 'DELETE', `${templates()}?name=bye&hsm_id=${ids.es}`);
    assert.deepEqual([one.status, one.body], [200, { success: true }]);
    assert.deepEqual((await names()).filter((n) => n.startsWith('bye:')), ['bye:en', 'bye:pt_BR']);
    const wrongId = await cloudRequest(p.t, p.alice.key, 'DELETE', `${templates()}?name=bye&hsm_id=${ids.es}`);
    assert.deepEqual([wrongId.status, wrongId.body.error.code, wrongId.body.error.error_data.details], [404, 132001, `template bye with id ${ids.es} not found`]);
    const all = await cloudRequest(p.t, p.alice.key, 'DELETE', `${templates()}?name=bye&access_token=${p.alice.key}`);
    assert.deepEqual([all.status, all.body], [200, { success: true }]);
    assert.deepEqual((await names()).filter((n) => n.startsWith('bye:')), []);

    // Deleting alice's welcome uncovers the operator's; the operator's own cannot be deleted with an instance key.
    assert.equal((await cloudRequest(p.t, p.alice.key, 'DELETE', `${templates()}?name=welcome`)).status, 200);
    assert.deepEqual(await send(new M.Template('welcome', 'en')), { type: 'text', body: 'Welcome from the operator' });
    const shared = await cloudRequest(p.t, p.alice.key, 'DELETE', `${templates()}?name=welcome`);
    assert.equal(shared.status, 404);
    assert.match(shared.body.error.error_data.details, /server-wide, not this business account's: DELETE \/admin\/cloud-api\/templates/);
    assert.equal((await p.t.admin('GET', '/admin/cloud-api/templates/welcome/en')).status, 200);
    const noName = await cloudRequest(p.t, p.alice.key, 'DELETE', templates());
    assert.deepEqual([noName.status, noName.body.error.code], [400, 100]);
    const foreign = await cloudRequest(p.t, p.bob.key, 'DELETE', `${templates()}?name=seasonal_promotion`);
    assert.deepEqual([foreign.status, foreign.body.error.error_subcode], [400, 33]);
    assert.ok((await names()).includes('seasonal_promotion:en_US'));
  });

  it('pages the list by limit with cursors and a next link, and filters by name, language, status and category', async () => {
    for (const n of [1, 2, 3]) assert.equal((await create({ name: `paged_${n}`, language: 'en', category: 'UTILITY', components: body(`page ${n}`) })).status, 200);
    const everything = await names();
    const seen: string[] = [];
    let page = await list('?limit=2');
    for (;;) {
      assert.ok(page.data.length <= 2);
      seen.push(...page.data.map((t) => `${t.name}:${t.language}`));
      if (!page.paging.next) break;
      // The next link carries the token as the query, as Meta's do: fetched with no header.
      assert.ok(page.paging.next.startsWith(`${p.t.url}/${CLOUD_VERSION}/${p.alice.id}/message_templates?`), page.paging.next);
      const res = await fetch(page.paging.next);
      assert.equal(res.status, 401, 'no token in the link: the request had none');
      page = await list(`?limit=2&after=${page.paging.cursors.after}`);
    }
    assert.deepEqual(seen, everything);
    assert.deepEqual(seen, [...seen].sort());
    const withToken = await list(`?limit=2&access_token=${p.alice.key}`);
    const next = await fetch(withToken.paging.next);
    assert.equal(next.status, 200);
    assert.deepEqual(((await next.json()) as any).data.map((t: any) => t.name), seen.slice(2, 4).map((n) => n.split(':')[0]));

    assert.deepEqual((await list('?name=paged_2')).data.map((t) => t.name), ['paged_2']);
    assert.deepEqual((await list('?name=seasonal_promotion&language=en')).data, []);
    assert.deepEqual((await list('?category=MARKETING')).data.map((t) => t.name), ['seasonal_promotion']);
    assert.deepEqual((await list('?status=REJECTED')).data, []);
    assert.equal((await list('?status=APPROVED&limit=1000')).data.length, everything.length);
    const badLimit = await cloudRequest(p.t, p.alice.key, 'GET', `${templates()}?limit=0`);
    assert.deepEqual([badLimit.status, badLimit.body.error.code], [400, 100]);
  });

  it('deletes an instance\'s templates with the instance', async () => {
    const carol = await p.t.connectedSandbox({ name: 'carol', number: '5511900000913' });
    assert.equal((await create({ name: 'carols', language: 'en', category: 'UTILITY', components: body('Hi') }, carol.key, carol.id)).status, 200);
    const state = p.t.server.context.storage.state;
    assert.equal((await state.list(`${carol.id}:cloud-api:templates`)).length, 1);
    assert.equal((await p.t.client().call('adminDeleteInstance', { params: { key: carol.key } })).status, 200);
    assert.deepEqual(await state.list(`${carol.id}:cloud-api:templates`), []);
  });
});
