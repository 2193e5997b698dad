import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as M from 'whatsapp-api-js/messages';
import { CLOUD_VERSION, cloudClient, cloudRequest } from '../support/cloud-api.js';
import { MessagingPair } from '../support/messaging.js';

/** Operator-defined templates: the admin API, and Cloud API template sends rendered to ordinary messages. */
describe('Cloud API templates', () => {
  let p: MessagingPair;
  const BOB = '5511900000902';
  const path = (name: string, language: string) => `/admin/cloud-api/templates/${name}/${language}`;

  before(async () => {
    p = await MessagingPair.start({}, ['5511900000901', BOB]);
  });
  after(async () => {
    await p.stop();
  });

  /** Sends a template through whatsapp-api-js and answers the raw answer. */
  const sendTemplate = (template: M.Template) => cloudClient(p.t, p.alice.key).sendMessage(p.alice.id, BOB, template) as Promise<any>;
  /** What alice's side stored of a sent message, as text (to look for the rendered strings). */
  const storedText = async (id: string) => {
    await p.t.settle();
    return JSON.stringify((await p.t.client(p.alice.key).call('getMessage', { params: { messageId: id } })).data.message);
  };

  it('creates, reads, lists, replaces and deletes templates through the admin API', async () => {
    const created = await p.t.admin('PUT', path('greeting', 'pt_BR'), { body: 'Olá {{1}}!', footer: 'Loja Parley' });
    assert.deepEqual(created.body, { status: 200, data: { name: 'greeting', language: 'pt_BR', body: 'Olá {{1}}!', footer: 'Loja Parley' } });
    assert.deepEqual((await p.t.admin('GET', path('greeting', 'pt_BR'))).body.data.body, 'Olá {{1}}!');
    await p.t.admin('PUT', path('greeting', 'pt_BR'), { body: 'Oi {{1}}!' });
    assert.deepEqual((await p.t.admin('GET', '/admin/cloud-api/templates')).body.data, [{ name: 'greeting', language: 'pt_BR', body: 'Oi {{1}}!' }]);
    assert.equal((await p.t.admin('DELETE', path('greeting', 'pt_BR'))).status, 200);
    const gone = await p.t.admin('GET', path('greeting', 'pt_BR'));
    assert.deepEqual(gone.body, { status: 404, error: { code: 'template_not_found', message: 'template greeting in pt_BR not found' } });
    assert.equal((await p.t.request('GET', '/admin/cloud-api/templates')).status, 401);
  });

  it('refuses bad templates with 400 naming the field, and stores nothing', async () => {
    const bad: [string, unknown, string][] = [
      [path('gaps', 'en'), { body: 'Hi {{1}} and {{3}}' }, 'body.body must number its placeholders {{1}} to {{2}} without gaps'],
      [path('mixed', 'en'), { body: 'Hi {{1}} and {{name}}' }, 'body.body mixes numbered and named placeholders'],
      [path('buttons', 'en'), { body: 'Hi', buttons: [{ type: 'quick_reply', text: 'Yes' }, { type: 'url', text: 'Go', url: 'https://example.com' }] }, 'body.buttons must be all quick_reply or all url: a message carries one kind'],
      [path('nourl', 'en'), { body: 'Hi', buttons: [{ type: 'url', text: 'Go' }] }, 'body.buttons[0].url is required for a url button'],
      [path('empty', 'en'), { body: '' }, 'body.body must NOT have fewer than 1 characters'],
      [path('Bad-Name', 'en'), { body: 'Hi' }, 'path.name'],
      [path('lang', 'portuguese'), { body: 'Hi' }, 'path.language'],
    ];
    for (const [where, body, message] of bad) {
      const res = await p.t.admin('PUT', where, body);
      assert.equal(res.status, 400, `${where} ${JSON.stringify(res.body)}`);
      assert.ok(res.body.error.message.includes(message), `${where}: ${res.body.error.message}`);
    }
    assert.deepEqual((await p.t.admin('GET', '/admin/cloud-api/templates')).body.data, []);
  });

  it('renders a template sent by whatsapp-api-js: header, positional and named parameters, url and quick reply buttons', async () => {
    await p.t.admin('PUT', path('order_update', 'pt_BR'), {
      header: 'Pedido {{1}}', body: 'Olá {{1}}, seu pedido {{2}} foi enviado.', footer: 'Loja Parley',
      buttons: [{ type: 'url', text: 'Rastrear', url: 'https://example.com/track/{{1}}' }],
    });
    await p.t.admin('PUT', path('named', 'en'), { body: 'Hi {{first_name}}!', footer: 'Parley' });
    await p.t.admin('PUT', path('welcome', 'en'), { header: 'Welcome', body: 'Shall we start?', buttons: [{ type: 'quick_reply', text: 'Yes' }, { type: 'quick_reply', text: 'No' }] });

    const order = await sendTemplate(new M.Template('order_update', new M.Language('pt_BR'),
      new M.HeaderComponent(new M.HeaderParameter('4711')), new M.BodyComponent(new M.BodyParameter('Ana'), new M.BodyParameter('4711')), new M.URLComponent('4711')));
    assert.equal(order.messages?.[0]?.message_status, 'accepted', JSON.stringify(order));
    const orderText = await storedText(order.messages[0].id);
    for (const part of ['Pedido 4711', 'Olá Ana, seu pedido 4711 foi enviado.', 'Loja Parley', 'Rastrear', 'https://example.com/track/4711']) assert.ok(orderText.includes(part), `${part} in ${orderText}`);

    const named = await sendTemplate(new M.Template('named', 'en', new M.BodyComponent(new M.BodyParameter('Ana', 'first_name'))));
    const got = await p.received(named.messages[0].id);
    assert.deepEqual(got.message.content, { type: 'text', body: 'Hi Ana!\n\nParley' });

    const welcome = await sendTemplate(new M.Template('welcome', 'en', new M.PayloadComponent('start-yes'), new M.PayloadComponent('start-no')));
    const welcomeText = await storedText(welcome.messages[0].id);
    for (const part of ['Welcome', 'Shall we start?', 'start-yes', 'start-no', 'Yes', 'No']) assert.ok(welcomeText.includes(part), `${part} in ${welcomeText}`);
  });

  it('lists the templates on the Graph path Chatwoot\'s template sync reads, with the token as access_token', async () => {
    await p.t.admin('PUT', path('listed', 'en'), { header: 'Hi', body: 'Hello {{1}}', footer: 'Bye', buttons: [{ type: 'quick_reply', text: 'Ok' }] });
    const listed = await cloudRequest(p.t, undefined, 'GET', `/${CLOUD_VERSION}/${p.alice.id}/message_templates?access_token=${p.alice.key}`);
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(listed.body.data.find((d: { name: string }) => d.name === 'listed'), {
      id: 'listed:en', name: 'listed', language: 'en', status: 'APPROVED', category: 'UTILITY',
      components: [{ type: 'HEADER', format: 'TEXT', text: 'Hi' }, { type: 'BODY', text: 'Hello {{1}}' }, { type: 'FOOTER', text: 'Bye' }, { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Ok' }] }],
    });
    const wrong = await cloudRequest(p.t, undefined, 'GET', `/${CLOUD_VERSION}/${p.alice.id}/message_templates?access_token=nope`);
    assert.deepEqual([wrong.status, wrong.body.error.code], [401, 190]);
    const foreign = await cloudRequest(p.t, p.bob.key, 'GET', `/${CLOUD_VERSION}/${p.alice.id}/message_templates`);
    assert.deepEqual([foreign.status, foreign.body.error.code, foreign.body.error.error_subcode], [400, 100, 33]);
  });

  it('answers the Cloud API\'s errors for an unknown template and wrong parameters, and sends nothing', async () => {
    await p.t.admin('PUT', path('two_params', 'en'), { body: '{{1}} and {{2}}' });
    const before = p.t.events.filter((e) => e.type === 'message' && e.instance === p.bob.id).length;
    const unknown = await sendTemplate(new M.Template('nope', 'en'));
    assert.equal(unknown.error.code, 132001);
    assert.equal(unknown.error.error_data.details, 'template nope in en not found');
    const otherLanguage = await sendTemplate(new M.Template('two_params', 'pt_BR', new M.BodyComponent(new M.BodyParameter('a'), new M.BodyParameter('b'))));
    assert.equal(otherLanguage.error.code, 132001);
    const missing = await sendTemplate(new M.Template('two_params', 'en', new M.BodyComponent(new M.BodyParameter('a'))));
    assert.equal(missing.error.code, 132000);
    assert.equal(missing.error.error_data.details, 'the template\'s body has 2 parameter(s); 1 given');
    await p.t.settle();
    assert.equal(p.t.events.filter((e) => e.type === 'message' && e.instance === p.bob.id).length, before);
  });
});
