import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MediaServer, SAMPLES } from '../support/media-server.js';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';

/**
 * Sends of spec 4.2 and 4.13 that need more of WhatsApp than a relayed message, through Parley's REST API with
 * the real Baileys socket against the simulator: call links (WhatsApp creates the link's token), a catalog
 * product card, and an audio story; each decrypted on the receiving phone.
 */
describe('WhatsApp call links, product cards and audio stories through the simulator', () => {
  // The product's picture is served on loopback.
  const env = useSimulatedWhatsApp({ allowPrivateUrls: true });

  it('creates call links WhatsApp issues, alone and sent to a phone with a caption', { timeout: 90_000 }, async () => {
    const { sim } = env;
    const [shop, friend] = ['5511987659911', '5511987659912'];
    const { api } = await env.shopWithFriend(shop, friend, 'call-links');
    const created = (await api.call('createCallLink', { body: { type: 'video' } })).data;
    const [issued] = sim.simulator.callLinks(shop);
    assert.deepEqual([issued?.media, created.link], ['video', `https://call.whatsapp.com/video/${issued?.token}`]);
    assert.equal(sim.simulator.received(friend).length, 0, 'create-call-link sends nothing');

    const sent = (await api.call('sendCallLink', { body: { to: friend, type: 'audio', caption: 'Reunião às 15h' } })).data;
    const got = await env.t.waitFor(() => sim.simulator.received(friend).find((m) => m.id === sent.key.id), 20_000, 'the phone to decrypt the link');
    const audio = sim.simulator.callLinks(shop).find((l) => l.media === 'audio');
    assert.ok(audio, 'a second link, for an audio call');
    assert.equal(got.text, `Reunião às 15h\nhttps://call.whatsapp.com/voice/${audio.token}`);
  });

  it('sends a product card of the shop\'s catalog that the phone decrypts', { timeout: 90_000 }, async () => {
    const { sim } = env;
    const shop = sim.simulator.createAccount({ number: '5511987659921', pushName: 'Doceria', business: true });
    const friend = sim.simulator.createAccount({ number: '5511987659922', pushName: 'Cliente' });
    const web = await MediaServer.start({ '/bolo.jpg': { body: SAMPLES.jpeg, type: 'image/jpeg' } });
    try {
      // The catalog's picture URL is one Parley can fetch here (WhatsApp's own are on its CDN, out of reach offline).
      const product = sim.simulator.addProduct(shop.number, { name: 'Bolo de pote', description: 'Chocolate', price: 1500, currency: 'BRL', images: [`${web.url}/bolo.jpg`] });
      const { api } = await env.linkByQr(shop.number, 'product-card');
      const sent = (await api.call('sendProduct', { body: { to: friend.number, businessOwnerJid: shop.number, productId: product.id, catalogId: shop.number } })).data;
      const got = await env.t.waitFor(() => sim.simulator.received(friend.number).find((m) => m.id === sent.key.id), 20_000, 'the phone to decrypt the card');
      const card = got.message.productMessage as { product?: { productId?: string; title?: string; currencyCode?: string }; businessOwnerJid?: string } | undefined;
      assert.deepEqual([card?.product?.productId, card?.product?.title, card?.product?.currencyCode, card?.businessOwnerJid], [product.id, 'Bolo de pote', 'BRL', shop.jid]);
    } finally {
      await web.stop();
    }
  });

  it('posts an audio story the audience\'s phone decrypts, byte for byte', { timeout: 90_000 }, async () => {
    const { sim } = env;
    const [shop, fan] = ['5511987659931', '5511987659932'];
    const { api } = await env.shopWithFriend(shop, fan, 'audio-story');
    const url = `data:audio/ogg;base64,${SAMPLES.ogg.toString('base64')}`;
    const story = (await api.call('postAudioStatus', { body: { url, statusJidList: [fan] } })).data;
    const seen = await env.t.waitFor(() => sim.simulator.received(fan).find((m) => m.id === story.id && m.media), 20_000, 'the fan\'s phone to decrypt the audio story');
    assert.deepEqual([seen.group, seen.fromNumber, seen.media?.kind, seen.media?.error], ['status@broadcast', shop, 'audio', undefined]);
    assert.deepEqual(sim.simulator.receivedMedia(fan, story.id).data, SAMPLES.ogg);
  });
});
