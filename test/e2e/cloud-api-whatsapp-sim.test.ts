import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import * as M from 'whatsapp-api-js/messages';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { CLOUD_VERSION, cloudClient, cloudRequest } from '../support/cloud-api.js';
import { memberOf, phoneGot } from '../support/simulated-phone.js';
import { useSimulatedWhatsApp, type SimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

/**
 * The Cloud API surface over the WhatsApp channel (Baileys' real socket against the simulator), not
 * the sandbox: what reaches the phone, and the Cloud API's code for a recipient not on WhatsApp.
 */
describe('Cloud API on a WhatsApp instance (the simulator)', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  let shop: Awaited<ReturnType<SimulatedWhatsApp['linkByQr']>>;
  /** The shop's instance: its id (the phone number id) and key (the bearer token). */
  let id: string;
  let key: string;
  const friend = '5511987659202';
  const env = useSimulatedWhatsApp();
  before(async () => {
    ({ sim, t } = env);
    shop = await env.shopWithFriend('5511987659201', friend, 'cloud-api');
    [id, key] = [shop.open.id!, shop.api.key];
  });

  it('whatsapp-api-js sends a text the friend\'s phone decrypts', { timeout: 60_000 }, async () => {
    const sent = await cloudClient(t, key).sendMessage(id, friend, new M.Text('Olá da Cloud API')) as any;
    assert.deepEqual(sent.contacts, [{ input: friend, wa_id: friend }], JSON.stringify(sent));
    const got = await phoneGot(sim, t, friend, sent.messages[0].id);
    const [member, value] = memberOf(got.message as Record<string, unknown>);
    assert.equal(member === 'conversation' ? got.message.conversation : value.text, 'Olá da Cloud API');
  });

  it('a send to a number not on WhatsApp answers the Cloud API\'s 131026 (message undeliverable): nothing queued, nothing sent', { timeout: 60_000 }, async () => {
    const nobody = '5511987659299';
    const res = await cloudRequest(t, key, 'POST', `/${CLOUD_VERSION}/${id}/messages`, { messaging_product: 'whatsapp', to: nobody, type: 'text', text: { body: 'alô?' } });
    assert.equal(res.status, 404, JSON.stringify(res.body));
    const { error } = res.body;
    assert.deepEqual([error.code, error.message, error.error_data.details], [131026, '(#131026) Message undeliverable', `WhatsApp account of ${nobody} not found`]);
    assert.deepEqual((await shop.api.call('listQueue')).data, []);
    assert.deepEqual(sim.simulator.stanzas('5511987659201', 'message').filter((s) => (s.stanza.attrs.to ?? '').startsWith(nobody)), []);
  });

  it('a business account\'s profile reads as the phone has it, and about written through the Cloud API is what WhatsApp answers', { timeout: 60_000 }, async () => {
    const number = '5511987659203';
    sim.simulator.createAccount({ number, pushName: 'Doceria', business: true });
    sim.simulator.setBusinessProfile(number, { description: 'Doces finos', websites: ['https://doceria.example'], category: 'Confeitaria' });
    const bakery = await env.linkByQr(number, 'cloud-api-business');
    const path = `/${CLOUD_VERSION}/${bakery.open.id}/whatsapp_business_profile`;
    const read = (query = '') => cloudRequest(t, bakery.api.key, 'GET', `${path}${query}`);
    const profile = await t.waitFor(async () => {
      const { body } = await read('?fields=description,websites,vertical');
      return body.data?.[0]?.description ? body.data[0] : undefined;
    }, 10_000, 'the business profile');
    assert.deepEqual(profile, { description: 'Doces finos', websites: ['https://doceria.example'], vertical: 'Confeitaria', messaging_product: 'whatsapp' });
    assert.deepEqual(await cloudRequest(t, bakery.api.key, 'POST', path, { messaging_product: 'whatsapp', about: 'Encomendas pelo WhatsApp' }), { status: 200, body: { success: true } });
    assert.deepEqual((await read('?fields=about')).body, { data: [{ about: 'Encomendas pelo WhatsApp', messaging_product: 'whatsapp' }] });
    // What another account's WhatsApp answers for the bakery's about text.
    const seen = await shop.api.call('getContactStatus', { params: { number } });
    assert.equal((seen.data as { status: string | null }).status, 'Encomendas pelo WhatsApp');
  });
});
