import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { MediaServer, SAMPLE_FILES, SAMPLES, sha256Base64 } from '../support/media-server.js';
import { memberOf, phoneGot } from '../support/simulated-phone.js';
import { useSimulatedWhatsApp, type SimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

/**
 * Spec 4.3: every reply type through Parley's REST API (`POST /{key}/message/{messageId}/{type}`) to a
 * text the simulated phone sent, on Baileys' real socket. The phone decrypts each reply and finds its
 * own message quoted: the stanza id, its account as participant and the quoted text.
 */
describe('WhatsApp replies of every type, quoted on the simulated phone', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  let media: MediaServer;
  let api: Awaited<ReturnType<SimulatedWhatsApp['linkByQr']>>['api'];
  let question: string;
  const shop = '5511987659101';
  const friend = '5511987659102';
  const env = useSimulatedWhatsApp({ allowPrivateUrls: true });
  before(() => {
    ({ sim, t } = env);
  });
  before(async () => {
    media = await MediaServer.start(SAMPLE_FILES);
    ({ api } = await env.shopWithFriend(shop, friend, 'replies'));
    question = (await sim.simulator.sendText(friend, shop, 'Tem na cor azul?')).id;
    await t.waitFor(async () => {
      const page = await api.call('listChatMessages', { params: { jid: `${friend}@s.whatsapp.net` } });
      return page.data.some((m) => m.key.id === question);
    }, 20_000, 'the phone\'s question to be stored');
  });
  after(async () => {
    await media.stop();
  });
  const url = (path: string) => `${media.url}${path}`;
  const params = () => ({ messageId: question });
  type Sent = { data: { key: { id: string } } };
  /** Each reply type of spec 4.3, the member the phone must decrypt, and a check of its content. */
  const cases: Array<{ type: string; send: () => Promise<Sent>; member: string; check: (value: Record<string, any>) => void }> = [
    { type: 'text', send: () => api.call('replyText', { params: params(), body: { to: friend, text: 'Tem sim' } }), member: 'extendedTextMessage', check: (v) => assert.equal(v.text, 'Tem sim') },
    {
      type: 'image', send: () => api.call('replyImage', { params: params(), body: { to: friend, url: url('/a.png'), caption: 'esta' } }),
      member: 'imageMessage', check: (v) => assert.deepEqual([v.caption, v.fileSha256], ['esta', sha256Base64(SAMPLES.png)]),
    },
    {
      type: 'video', send: () => api.call('replyVideo', { params: params(), body: { to: friend, url: url('/a.mp4'), caption: 'vídeo' } }),
      member: 'videoMessage', check: (v) => assert.deepEqual([v.caption, v.fileSha256], ['vídeo', sha256Base64(SAMPLES.mp4)]),
    },
    {
      type: 'document', send: () => api.call('replyDocument', { params: params(), body: { to: friend, url: url('/a.pdf'), mimetype: 'application/pdf', fileName: 'tabela.pdf' } }),
      member: 'documentMessage', check: (v) => assert.deepEqual([v.fileName, v.fileSha256], ['tabela.pdf', sha256Base64(SAMPLES.pdf)]),
    },
    {
      type: 'audio', send: () => api.call('replyAudio', { params: params(), body: { to: friend, url: url('/a.mp3') } }),
      member: 'audioMessage', check: (v) => assert.deepEqual([v.mimetype, v.fileSha256], ['audio/mpeg', sha256Base64(SAMPLES.mp3)]),
    },
    {
      type: 'contact', send: () => api.call('replyContact', { params: params(), body: { to: friend, contact: { fullName: 'Suporte', phoneNumber: '5511955554444' } } }),
      member: 'contactMessage', check: (v) => assert.match(v.vcard, /FN:Suporte[\s\S]*waid=5511955554444/),
    },
    {
      type: 'location', send: () => api.call('replyLocation', { params: params(), body: { to: friend, location: { latitude: 1.5, longitude: 2.25, address: 'Aqui' } } }),
      member: 'locationMessage', check: (v) => assert.deepEqual([v.degreesLatitude, v.degreesLongitude, v.address], [1.5, 2.25, 'Aqui']),
    },
    {
      type: 'title', send: () => api.call('replyTitle', { params: params(), body: { to: friend, title: 'Nota', text: 'Veja acima' } }),
      member: 'interactiveMessage', check: (v) => assert.deepEqual([v.header?.title, v.body?.text], ['Nota', 'Veja acima']),
    },
    {
      type: 'button_reply',
      send: () => api.call('replyButtonReply', { params: params(), body: { to: friend, text: 'Qual?', buttons: [{ type: 'quick_reply', id: 'azul', text: 'Azul' }] } }),
      member: 'interactiveMessage', check: (v) => assert.deepEqual([v.body?.text, v.nativeFlowMessage?.buttons?.[0]?.name], ['Qual?', 'quick_reply']),
    },
    {
      type: 'button_action',
      send: () => api.call('replyButtonAction', {
        params: params(), body: { to: friend, header: { title: 'Ajuda' }, text: 'Ligue', buttons: [{ type: 'cta_call', text: 'Ligar', phone_number: '5511999990000' }] },
      }),
      member: 'interactiveMessage', check: (v) => assert.deepEqual([v.header?.title, v.nativeFlowMessage?.buttons?.[0]?.name], ['Ajuda', 'cta_call']),
    },
    {
      type: 'pix',
      send: () => api.call('replyPix', {
        params: params(), body: {
          to: friend, title: 'Fatura', text: 'Pague aqui', referenceId: 'F1', code: 'pixcode', key: 'pay@loja.example', merchantName: 'Loja',
          keyType: 'EMAIL', items: [{ id: 'x', name: 'Camisa', price: 100, quantity: 1 }], subtotal: 100, totalAmount: 100,
        },
      }),
      member: 'interactiveMessage', check: (v) => assert.equal(v.nativeFlowMessage?.buttons?.[0]?.name, 'review_and_pay'),
    },
  ];

  for (const c of cases) {
    it(`${c.type}: the phone decrypts it quoting its own question`, { timeout: 30_000 }, async () => {
      const sent = await c.send();
      const got = await phoneGot(sim, t, friend, sent.data.key.id);
      const [name, value] = memberOf(got.message);
      assert.equal(name, c.member);
      c.check(value);
      const quote = value.contextInfo;
      assert.equal(quote?.stanzaId, question);
      assert.equal(quote?.participant, `${friend}@s.whatsapp.net`);
      assert.ok(JSON.stringify(quote?.quotedMessage).includes('Tem na cor azul?'), 'the quoted text travels with the reply');
    });
  }
});
