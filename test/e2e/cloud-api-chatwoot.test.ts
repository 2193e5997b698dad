import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHttpReceiver, type HttpReceiver } from '@parley/testkit';
import { ChatwootInbox } from '../support/chatwoot.js';
import { CLOUD_VERSION, cloudRequest } from '../support/cloud-api.js';
import { MediaServer, SAMPLES } from '../support/media-server.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * Chatwoot's WhatsApp Cloud channel against Parley (docs/cloud-api.md, Chatwoot): the requests its
 * code makes (test/support/chatwoot.ts cites the files), and Parley's answers read the way that code
 * reads them.
 */
describe('Cloud API: Chatwoot\'s WhatsApp Cloud channel', () => {
  let t: TestServer;
  let media: MediaServer;
  let callback: HttpReceiver;
  let chatwoot: ChatwootInbox;
  let shop: { id: string; key: string };
  let customer: { id: string; key: string };
  const SHOP = '5511900000921';
  const CUSTOMER = '5511900000922';
  const inboxPath = `/webhooks/whatsapp/+${SHOP}`;

  before(async () => {
    t = await startTestServer();
    media = await MediaServer.start({ '/photo.jpg': { body: SAMPLES.jpeg, type: 'image/jpeg' }, '/terms.pdf': { body: SAMPLES.pdf, type: 'application/pdf' }, '/voice.ogg': { body: SAMPLES.ogg, type: 'audio/ogg' } });
    callback = await startHttpReceiver();
    shop = await t.connectedSandbox({ name: 'shop', number: SHOP, webhook: { allowWebhook: true, webhookFormat: 'cloud-api', webhookMessage: `${callback.url}${inboxPath}` } });
    customer = await t.connectedSandbox({ name: 'customer', number: CUSTOMER });
    chatwoot = new ChatwootInbox(t.url, {
      api_key: shop.key, phone_number_id: shop.id, business_account_id: shop.id, webhook_verify_token: 'chatwoot-inbox-verify', phone_number: `+${SHOP}`,
    });
    callback.respond(chatwoot.webhookResponder());
  });
  after(async () => {
    await callback.close();
    await media.stop();
    await t.stop();
  });

  /** What the customer received of message `id`. */
  const received = async (id: string) => {
    const event = await t.waitFor(() => t.events.find((e) => e.type === 'message' && e.instance === customer.id && e.message.id === id), 5000, `message ${id}`);
    return (event as any).message.content;
  };

  it('connects the inbox: the provider check, the handshake with the inbox\'s verify token, the template sync across pages', async () => {
    assert.equal(await chatwoot.validateProviderConfig(), true);
    const wrongKey = new ChatwootInbox(t.url, { ...chatwoot.config, api_key: 'not-the-key' });
    assert.equal(await wrongKey.validateProviderConfig(), false);

    const verify = await t.request('POST', `/${shop.key}/instance/webhook/verify`, { verifyToken: 'chatwoot-inbox-verify' });
    assert.deepEqual(verify.body, { status: 200, data: { verified: true, url: `${callback.url}${inboxPath}` } });
    const wrong = await t.request('POST', `/${shop.key}/instance/webhook/verify`, { verifyToken: 'another-token' });
    assert.deepEqual(wrong.body.data, { verified: false, url: `${callback.url}${inboxPath}`, reason: 'HTTP 401', receiverStatus: 401 });

    // More templates than a page (Meta's 25): Chatwoot follows paging.next, which carries its access_token.
    for (let i = 0; i < 27; i++) {
      const made = await cloudRequest(t, shop.key, 'POST', `/${CLOUD_VERSION}/${shop.id}/message_templates`, {
        name: `promo_${String(i).padStart(2, '0')}`, language: 'pt_BR', category: 'MARKETING', components: [{ type: 'BODY', text: `Promo ${i} para {{1}}`, example: { body_text: [['Ana']] } }],
      });
      assert.equal(made.status, 200, JSON.stringify(made.body));
    }
    const synced = await chatwoot.syncTemplates();
    assert.equal(synced.length, 27);
    assert.equal(chatwoot.sent.filter((r) => r.url.includes('/message_templates?')).length, 1 + 2, 'the check, then two pages');
    // What Chatwoot's template picker reads of each template.
    for (const template of synced) {
      assert.equal(template.status, 'APPROVED');
      assert.equal(template.language, 'pt_BR');
      assert.equal(template.category, 'MARKETING');
      assert.match(template.name, /^promo_\d\d$/);
      assert.deepEqual(template.components, [{ type: 'BODY', text: `Promo ${Number(template.name.slice(6))} para {{1}}` }]);
    }
  });

  it('manages and sends the CSAT template as its CsatTemplateService does', async () => {
    const created = await chatwoot.createCsatTemplate({ message: 'How would you rate your conversation with us?', base_url: 'https://chatwoot.example' });
    assert.equal(created.success, true, JSON.stringify(created.response.parsed));
    assert.match(created.template_id!, /^[0-9]+$/);
    assert.deepEqual(await chatwoot.csatTemplateStatus(), {
      success: true, template: { id: created.template_id, name: 'customer_satisfaction_survey', status: 'APPROVED', language: 'en' },
    });
    const sent = await chatwoot.sendTemplate(CUSTOMER, 'customer_satisfaction_survey', 'en', [
      { type: 'button', sub_type: 'url', index: 0, parameters: [{ type: 'text', text: 'conversation-uuid-1234' }] },
    ]);
    assert.ok(sent.id, JSON.stringify(sent.res.parsed));
    assert.equal(await chatwoot.deleteCsatTemplate(), true);
    assert.deepEqual(await chatwoot.csatTemplateStatus(), { success: false });
    // Deleted twice: Chatwoot reads success? false.
    assert.equal(await chatwoot.deleteCsatTemplate(), false);
    await t.settle();
    const stored = await t.client(shop.key).call('getMessage', { params: { messageId: sent.id! } });
    assert.ok(JSON.stringify(stored.data).includes('https://chatwoot.example/survey/responses/conversation-uuid-1234'), JSON.stringify(stored.data));

    // A template with a body parameter, as the template picker sends it.
    const promo = await chatwoot.sendTemplate(CUSTOMER, 'promo_03', 'pt_BR', [{ type: 'body', parameters: [{ type: 'text', text: 'Ana' }] }]);
    assert.deepEqual(await received(promo.id!), { type: 'text', body: 'Promo 3 para Ana' });
    const unknown = await chatwoot.sendTemplate(CUSTOMER, 'no_such_template', 'en', []);
    assert.deepEqual([unknown.id, unknown.externalError], [undefined, '(#132001) Template name does not exist in the translation']);
  });

  it('sends what an agent writes as its WhatsappCloudService does: text, a reply, attachments, interactive buttons and lists', async () => {
    const text = await chatwoot.sendText(CUSTOMER, 'Hello! How can we help?');
    assert.ok(text.id, JSON.stringify(text.res.parsed));
    assert.deepEqual(await received(text.id!), { type: 'text', body: 'Hello! How can we help?' });
    const reply = await chatwoot.sendText(CUSTOMER, 'Following up', text.id);
    assert.ok(reply.id, JSON.stringify(reply.res.parsed));

    const image = await chatwoot.sendAttachment(CUSTOMER, 'image', `${media.url}/photo.jpg`, 'Your order', 'photo.jpg');
    assert.ok(image.id, JSON.stringify(image.res.parsed));
    const bare = await chatwoot.sendAttachment(CUSTOMER, 'image', `${media.url}/photo.jpg`, null, 'photo.jpg');
    assert.ok(bare.id, JSON.stringify(bare.res.parsed));
    const audio = await chatwoot.sendAttachment(CUSTOMER, 'audio', `${media.url}/voice.ogg`, null, 'voice.ogg');
    assert.ok(audio.id, JSON.stringify(audio.res.parsed));
    const document = await chatwoot.sendAttachment(CUSTOMER, 'file', `${media.url}/terms.pdf`, null, 'terms.pdf');
    assert.ok(document.id, JSON.stringify(document.res.parsed));
    const got = await received(document.id!);
    assert.equal(got.type, 'document');
    assert.equal(got.filename, 'terms.pdf');
    const captioned = await chatwoot.sendAttachment(CUSTOMER, 'file', `${media.url}/terms.pdf`, 'Our terms, signed', 'terms.pdf');
    assert.ok(captioned.id, JSON.stringify(captioned.res.parsed));
    assert.equal((await received(captioned.id!)).media.caption, 'Our terms, signed');

    const buttons = await chatwoot.sendInteractive(CUSTOMER, 'Was this helpful?', [{ title: 'Yes', value: 'yes' }, { title: 'No', value: 'no' }]);
    assert.ok(buttons.id, JSON.stringify(buttons.res.parsed));
    const list = await chatwoot.sendInteractive(CUSTOMER, 'Pick a size', [{ title: 'S', value: 's' }, { title: 'M', value: 'm' }, { title: 'L', value: 'l' }, { title: 'XL', value: 'xl', description: 'Extra large' }]);
    assert.ok(list.id, JSON.stringify(list.res.parsed));
    assert.deepEqual(await received(list.id!), { type: 'text', body: 'Pick a size\n\n• S\n• M\n• L\n• XL — Extra large' });
  });
  it('delivers to the inbox\'s callback what its webhook job reads, and the media downloads as its incoming service downloads it', async () => {
    const deliveries = () => callback.requests.filter((r) => r.method === 'POST' && r.url === inboxPath).map((r) => r.json as any);
    const text = await t.request('POST', `/${customer.key}/message/text`, { to: SHOP, text: 'Is my order on its way?' });
    const image = await t.request('POST', `/${customer.key}/message/base64/image`, { to: SHOP, base64: `data:image/jpeg;base64,${SAMPLES.jpeg.toString('base64')}`, caption: 'this one' });
    assert.deepEqual([text.status, image.status], [200, 200]);
    const messageOf = (id: string) => t.waitFor(() => deliveries().find((d) => d.entry[0].changes[0].value.messages?.[0]?.id === id), 10_000, `the delivery of ${id}`);

    // WhatsappEventsJob finds the inbox by +display_phone_number and phone_number_id; the base service reads the first change's value.
    const asText = await messageOf(text.body.data.key.id);
    assert.equal(chatwoot.accepts(asText), true, JSON.stringify(asText.entry[0].changes[0].value.metadata));
    const value = asText.entry[0].changes[0].value;
    assert.equal(value.contacts[0].wa_id, CUSTOMER);
    assert.equal(typeof value.contacts[0].profile.name, 'string');
    assert.deepEqual([value.messages[0].from, value.messages[0].type, value.messages[0].text.body], [CUSTOMER, 'text', 'Is my order on its way?']);

    const asImage = (await messageOf(image.body.data.key.id)).entry[0].changes[0].value.messages[0];
    assert.deepEqual([asImage.type, asImage.image.caption], ['image', 'this one']);
    const file = await chatwoot.downloadAttachment(asImage.image.id);
    assert.ok(file, 'Chatwoot got the media');
    assert.deepEqual(file.data, SAMPLES.jpeg);
    assert.equal(file.contentType, 'image/jpeg');
    const lookup = chatwoot.sent.at(-1)!;
    assert.equal(lookup.url, `${t.url}/v13.0/${asImage.image.id}?phone_number_id=${shop.id}`);

    // Statuses of what the inbox sent: the first status's id and status, as process_statuses reads them.
    const sent = await chatwoot.sendText(CUSTOMER, 'Yes, it ships today');
    const delivered = await t.waitFor(() => deliveries().find((d) => {
      const first = d.entry[0].changes[0].value.statuses?.[0];
      return first?.id === sent.id && first.status === 'delivered';
    }), 10_000, 'the delivered status');
    assert.equal(chatwoot.accepts(delivered), true);
  });
});
