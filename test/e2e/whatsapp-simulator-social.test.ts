import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ParleyApiError } from '@parley/client';
import { MediaServer, SAMPLES, sampleBytes } from '../support/media-server.js';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';

/**
 * Communities, join requests, the business profile and catalog, and status stories through Parley's REST
 * API with the channel's real Baileys socket, against the WhatsApp simulator: what the routes change is
 * checked on the simulated server and phones.
 */
describe('WhatsApp communities, join requests, business and stories through the simulator', () => {
  // Product images are served on loopback.
  const env = useSimulatedWhatsApp({ allowPrivateUrls: true });

  it('creates a community, a group in it and reads both back; handles its join requests', { timeout: 90_000 }, async () => {
    const { sim } = env;
    const owner = sim.simulator.createAccount({ number: '5511987656101', pushName: 'Associação' });
    const bob = sim.simulator.createAccount({ number: '5511987656102', pushName: 'Bob' });
    const carla = sim.simulator.createAccount({ number: '5511987656103', pushName: 'Carla' });
    const { api, connecting } = await env.linkByQr(owner.number, 'communities');
    const created = (await api.call('createCommunity', { body: { name: 'Moradores', subject: 'Rua das Flores' } })).data;
    assert.deepEqual([created.name, created.description], ['Moradores', 'Rua das Flores']);
    const onServer = sim.simulator.getGroup(created.id);
    assert.deepEqual([onServer.community, onServer.subject, onServer.description], [true, 'Moradores', 'Rua das Flores']);

    const group = (await api.call('createCommunityGroup', { params: { communityId: created.id }, body: { subject: 'Feira', participants: [bob.number] } })).data;
    assert.equal(sim.simulator.getGroup(group.id).linkedParent, created.id);
    assert.deepEqual(sim.simulator.getGroup(group.id).members.map((m) => m.number).sort(), [owner.number, bob.number].sort());

    const one = (await api.call('getCommunity', { params: { communityId: created.id } })).data;
    assert.equal(one.id, created.id);
    assert.equal(one.name, 'Moradores');
    assert.ok(one.groups?.includes(group.id), 'the linked group is listed');
    const list = (await api.call('listCommunities')).data;
    assert.deepEqual(list.map((c) => c.id), [created.id]);
    await api.call('updateCommunity', { params: { communityId: created.id }, body: { description: 'Rua das Flores, 100 a 300' } });
    assert.equal(sim.simulator.getGroup(created.id).description, 'Rua das Flores, 100 a 300');
    const { inviteCode } = await api.call('getCommunityInviteCode', { params: { communityId: created.id } }) as { inviteCode: string };
    assert.equal(inviteCode, sim.simulator.getGroup(created.id).inviteCode);
    const info = (await api.call('getCommunityInviteInfo', { query: { code: inviteCode } })).data;
    assert.deepEqual([info.id, info.subject, info.isCommunity], [created.id, 'Moradores', true]);

    // Settings (spec 4.11): who sends, who edits, who adds members, each read back from WhatsApp's metadata.
    const announced = (await api.call('changeCommunitySetting', { params: { communityId: created.id }, body: { setting: 'announcement' } })).data;
    assert.equal(announced.announce, true);
    assert.deepEqual([sim.simulator.getGroup(created.id).announce, sim.simulator.getGroup(created.id).restrict], [true, false]);
    await api.call('changeCommunitySetting', { params: { communityId: created.id }, body: { setting: 'locked' } });
    assert.equal(sim.simulator.getGroup(created.id).restrict, true);
    const open = (await api.call('setCommunityMemberAddMode', { params: { communityId: created.id }, body: { mode: 'all_member_add' } })).data;
    assert.equal(open.memberAddMode, 'all_member_add');
    assert.equal(sim.simulator.getGroup(created.id).memberAddMode, 'all_member_add');
    const closed = (await api.call('setCommunityMemberAddMode', { params: { communityId: created.id }, body: { mode: 'admin_add' } })).data;
    assert.equal(closed.memberAddMode, 'admin_add');
    assert.equal(sim.simulator.getGroup(created.id).memberAddMode, 'admin_add');
    // The community's disappearing timer and picture, as WhatsApp keeps them.
    await api.call('setCommunityEphemeral', { params: { communityId: created.id }, body: { expiration: 604_800 } });
    assert.equal(sim.simulator.getGroup(created.id).ephemeral, 604_800);
    await api.call('setCommunityPicture', { params: { communityId: created.id }, body: { url: connecting.image } });
    assert.deepEqual([...sim.simulator.groupPicture(created.id).subarray(0, 2)], [0xff, 0xd8], 'a JPEG on the server');
    // Bad input is refused before WhatsApp is asked, and changes nothing.
    const refusedWith = (status: number, code?: string) => (e: unknown) => e instanceof ParleyApiError && e.status === status && (!code || e.code === code);
    await assert.rejects(api.call('setCommunityMemberAddMode', { params: { communityId: created.id }, body: { mode: 'everyone' as never } }), refusedWith(400, 'validation_failed'));
    assert.equal(sim.simulator.getGroup(created.id).memberAddMode, 'admin_add');
    // A member who is not an admin is refused by WhatsApp (401 not-authorized): 403 not_admin.
    sim.simulator.updateGroupMembers(owner.number, created.id, 'add', [bob.number]);
    const { api: bobApi } = await env.linkByQr(bob.number, 'communities-bob');
    await assert.rejects(bobApi.call('setCommunityMemberAddMode', { params: { communityId: created.id }, body: { mode: 'all_member_add' } }), refusedWith(403, 'not_admin'));
    assert.equal(sim.simulator.getGroup(created.id).memberAddMode, 'admin_add');

    await api.call('setCommunityJoinApproval', { params: { communityId: created.id }, body: { mode: 'on' } });
    assert.equal(sim.simulator.getGroup(created.id).joinApproval, true);
    assert.equal(sim.simulator.requestJoin(carla.number, created.id).outcome, 'requested');
    const requests = (await api.call('listCommunityJoinRequests', { params: { communityId: created.id } })).data;
    assert.deepEqual(requests.map((r) => r.jid), [carla.jid]);
    const handled = await api.call('handleCommunityJoinRequests', { params: { communityId: created.id }, body: { participants: [carla.number], action: 'approve' } });
    assert.ok(JSON.stringify(handled).includes(carla.number));
    assert.ok(sim.simulator.getGroup(created.id).members.some((m) => m.number === carla.number), 'Carla is a member on the server');
  });

  it('a phone asks to join a group with approval on; the group routes list and approve or reject it', { timeout: 90_000 }, async () => {
    const { sim } = env;
    const owner = sim.simulator.createAccount({ number: '5511987656111', pushName: 'Loja' });
    const dani = sim.simulator.createAccount({ number: '5511987656112', pushName: 'Dani' });
    const edu = sim.simulator.createAccount({ number: '5511987656113', pushName: 'Edu' });
    const { api } = await env.linkByQr(owner.number, 'join-requests');
    const group = (await api.call('createGroup', { body: { name: 'Clientes', participants: [] } })).data;
    await api.call('setGroupJoinApproval', { params: { groupJid: group.id }, body: { mode: 'on' } });
    assert.equal(sim.simulator.getGroup(group.id).joinApproval, true);
    for (const phone of [dani, edu]) assert.equal(sim.simulator.requestJoin(phone.number, group.id).outcome, 'requested');
    const requests = (await api.call('listGroupJoinRequests', { params: { groupJid: group.id } })).data;
    assert.deepEqual(requests.map((r) => r.jid).sort(), [dani.jid, edu.jid].sort());
    assert.ok(requests.every((r) => r.requestTime > 0));
    await api.call('handleGroupJoinRequests', { params: { groupJid: group.id }, body: { participants: [dani.number], action: 'approve' } });
    await api.call('handleGroupJoinRequests', { params: { groupJid: group.id }, body: { participants: [edu.number], action: 'reject' } });
    const after = sim.simulator.getGroup(group.id);
    assert.deepEqual(after.members.map((m) => m.number).sort(), [owner.number, dani.number].sort());
    assert.deepEqual(after.requests, []);

    // The instance joins a phone's group by its invite code: with approval on, its join waits as a request.
    const club = sim.simulator.createGroup(dani.number, 'Clube da Dani', []);
    sim.simulator.setJoinApproval(dani.number, club.jid, true);
    const pending = await api.call('acceptGroupInvite', { body: { code: club.inviteCode } });
    assert.match((pending as { message?: string }).message ?? '', /join request sent/);
    assert.deepEqual(sim.simulator.getGroup(club.jid).requests.map((r) => r.number), [owner.number]);
    const open = sim.simulator.createGroup(edu.number, 'Aberto', []);
    const joined = await api.call('acceptGroupInvite', { body: { code: open.inviteCode } });
    assert.equal((joined as { data?: { id: string } }).data?.id, open.jid);
    assert.ok(sim.simulator.getGroup(open.jid).members.some((m) => m.number === owner.number));
  });

  it('shows the business profile and manages the catalog the phone has', { timeout: 90_000 }, async () => {
    const { sim } = env;
    const shop = sim.simulator.createAccount({ number: '5511987656121', pushName: 'Doceria', business: true });
    sim.simulator.setBusinessProfile(shop.number, { description: 'Doces finos', websites: ['https://doceria.example'], category: 'Confeitaria' });
    sim.simulator.addProduct(shop.number, { name: 'Bolo de pote', description: 'Chocolate', price: 1500, currency: 'BRL' });
    const { api } = await env.linkByQr(shop.number, 'business');
    const profile = await env.t.waitFor(async () => {
      const { instance } = await api.call('getInstance');
      return instance.businessProfile.description ? instance.businessProfile : undefined;
    }, 10_000, 'the business profile on the instance');
    assert.deepEqual(profile, { wid: shop.jid, description: 'Doces finos', website: ['https://doceria.example'], category: 'Confeitaria' });

    const page = await api.call('listCatalogProducts', { query: { limit: 10 } });
    assert.deepEqual(page.data.map((p) => [p.name, p.price, p.currency]), [['Bolo de pote', 1500, 'BRL']]);
    // An image already on WhatsApp's media servers travels as its URL (nothing is fetched or uploaded).
    const image = 'https://mmg.whatsapp.net/v/t62.product-catalog-image/brigadeiro.enc';
    const created = (await api.call('createCatalogProduct', {
      body: { name: 'Brigadeiro', description: 'Cento', price: 9000, currency: 'BRL', images: [{ url: image }], originCountryCode: 'BR' },
    })).data;
    const product = sim.simulator.catalog(shop.number).find((p) => p.name === 'Brigadeiro');
    assert.ok(product, 'the product is in the phone\'s catalog');
    assert.deepEqual([created.id, created.images], [product.id, [{ url: image }]]);
    assert.deepEqual([product.images, product.originCountryCode], [[image], 'BR']);
    await api.call('updateCatalogProduct', { params: { productId: product.id }, body: { price: 9900 } });
    assert.equal(sim.simulator.catalog(shop.number).find((p) => p.id === product.id)!.price, 9900);
    await api.call('deleteCatalogProduct', { params: { productId: product.id } });
    assert.deepEqual(sim.simulator.catalog(shop.number).map((p) => p.name), ['Bolo de pote']);
  });

  it('lists the phone\'s collections with their products (limit honoured) and reads a customer\'s order by its token', { timeout: 90_000 }, async () => {
    const { sim, t } = env;
    const shop = sim.simulator.createAccount({ number: '5511987656151', pushName: 'Empório', business: true });
    const buyer = sim.simulator.createAccount({ number: '5511987656152', pushName: 'Cliente' });
    const add = (name: string, price: number, images: string[] = []) => sim.simulator.addProduct(shop.number, { name, description: '', price, currency: 'BRL', images });
    const cafe = add('Café', 3990, ['https://mmg.whatsapp.net/v/t62.product-catalog-image/cafe.enc']);
    const filtro = add('Filtro', 1250);
    const xicara = add('Xícara', 2500);
    const kitchen = sim.simulator.addCollection(shop.number, 'Cozinha', [cafe.id, filtro.id, xicara.id]);
    const gifts = sim.simulator.addCollection(shop.number, 'Presentes', [xicara.id]);
    const { api } = await env.linkByQr(shop.number, 'collections');
    const { id } = (await api.call('getInstance')).instance as { id: string };

    const shown = (list: Array<{ id: string; name: string; products: Array<{ id: string; name: string; price: number }> }>) =>
      list.map((c) => [c.id, c.name, c.products.map((p) => [p.id, p.name, p.price])]);
    assert.deepEqual(shown((await api.call('listCatalogCollections', { query: { limit: 10 } })).data), [
      [kitchen.id, 'Cozinha', [[cafe.id, 'Café', 3990], [filtro.id, 'Filtro', 1250], [xicara.id, 'Xícara', 2500]]],
      [gifts.id, 'Presentes', [[xicara.id, 'Xícara', 2500]]],
    ]);
    // Baileys sends `limit` as both the collection and the item limit.
    assert.deepEqual(shown((await api.call('listCatalogCollections', { query: { limit: 1 } })).data), [[kitchen.id, 'Cozinha', [[cafe.id, 'Café', 3990]]]]);

    // A customer's phone orders: the business gets the orderMessage (a message Parley has no type for: unsupported, its record kept whole).
    const { order, sent } = await sim.simulator.sendOrder(buyer.number, shop.number, [{ productId: cafe.id, quantity: 2 }, { productId: filtro.id }]);
    const event = await t.waitFor(() => t.eventsOfType('message', id).find((e) => e.message.id === sent.id), 20_000, 'the order message event');
    assert.deepEqual([event.message.from, event.message.fromMe, event.message.content], [buyer.number, false, { type: 'unsupported', typeName: 'orderMessage' }]);
    const stored = await t.waitFor(async () => (await api.call('listChatMessages', { params: { jid: buyer.jid } })).data.find((m) => m.key.id === sent.id), 10_000, 'the stored order message');
    const { orderId, token, itemCount, sellerJid } = (stored.message as { orderMessage: { orderId: string; token: string; itemCount: number; sellerJid: string } }).orderMessage;
    assert.deepEqual([orderId, token, itemCount, sellerJid], [order.id, order.token, 3, shop.jid]);

    const details = await api.call('getCatalogOrder', { params: { orderId }, query: { token } });
    assert.deepEqual(details.data, {
      id: orderId, price: { total: 9230, currency: 'BRL' },
      products: [
        { id: cafe.id, name: 'Café', price: 3990, quantity: 2, currency: 'BRL', imageUrl: cafe.images[0] },
        { id: filtro.id, name: 'Filtro', price: 1250, quantity: 1, currency: 'BRL' },
      ],
    });
    const notFound = (e: unknown) => e instanceof ParleyApiError && e.status === 404 && e.code === 'order_not_found';
    await assert.rejects(api.call('getCatalogOrder', { params: { orderId }, query: { token: `${token.slice(1)}A` } }), notFound);
    await assert.rejects(api.call('getCatalogOrder', { params: { orderId: '1111111111111111' }, query: { token } }), notFound);
  });

  it('creates a product whose image is at the shop\'s own URL: uploaded whole to the media host', { timeout: 90_000 }, async () => {
    const { sim } = env;
    const shop = sim.simulator.createAccount({ number: '5511987656141', business: true });
    // Large enough that Baileys' own upload (which starts before its temporary file is written) sends a truncated file.
    const photo = sampleBytes(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), 400_000, 'product');
    const web = await MediaServer.start({ '/torta.png': { body: photo, type: 'image/png' } });
    try {
      const { api } = await env.linkByQr(shop.number, 'product-image');
      for (const name of ['Torta', 'Torta de limão']) {
        const created = (await api.call('createCatalogProduct', {
          body: { name, description: 'Inteira', price: 4500, currency: 'BRL', images: [{ url: `${web.url}/torta.png` }], originCountryCode: 'BR' },
        })).data;
        const onPhone = sim.simulator.catalog(shop.number).find((p) => p.id === created.id)!;
        assert.equal(onPhone.name, name);
        assert.deepEqual(sim.simulator.mediaFile(onPhone.images[0]!), photo, 'the media host holds the whole image');
      }
    } finally {
      await web.stop();
    }
  });

  it('posts text, image and video stories the audience\'s phones decrypt, and stores a story a contact\'s phone posts', { timeout: 90_000 }, async () => {
    const { sim, t } = env;
    const account = sim.simulator.createAccount({ number: '5511987656131', pushName: 'Loja' });
    const fan = sim.simulator.createAccount({ number: '5511987656132', pushName: 'Fã' });
    const other = sim.simulator.createAccount({ number: '5511987656133', pushName: 'Outro' });
    const { api } = await env.linkByQr(account.number, 'stories');
    const story = (await api.call('postTextStatus', { body: { text: 'Novidades na loja', statusJidList: [fan.jid] } })).data;
    const got = await t.waitFor(() => sim.simulator.received(fan.number).find((m) => m.id === story.id), 15_000, 'the fan\'s phone to decrypt the story');
    assert.deepEqual([got.group, got.fromNumber, (got.message.extendedTextMessage as { text?: string } | undefined)?.text], ['status@broadcast', account.number, 'Novidades na loja']);
    assert.equal(sim.simulator.received(other.number).length, 0, 'outside the audience');
    // POST /status/mention: the fan's phone gets, in its chat with the account, the mention of that story (STATUS_MENTION_MESSAGE, 25).
    const mention = (await api.call('mentionInStatus', { body: { jid: fan.jid, statusMsgId: story.id } })).data;
    const mentioned = await t.waitFor(() => sim.simulator.received(fan.number).find((m) => m.id === mention.id), 15_000, 'the fan\'s phone to decrypt the mention');
    assert.equal(mentioned.group, undefined, 'in the 1:1 chat');
    const inner = (mentioned.message.statusMentionMessage as { message?: { protocolMessage?: { key?: { remoteJid?: string; id?: string }; type?: number } } } | undefined)?.message?.protocolMessage;
    assert.deepEqual([inner?.type, inner?.key?.remoteJid, inner?.key?.id], [25, 'status@broadcast', story.id]);

    // Image and video stories: Baileys uploads each (encrypted) to the simulator's media host and relays it to
    // the audience only; the fan's phone downloads, checks and decrypts the very bytes Parley was given.
    const dataUri = (type: string, body: Buffer) => `data:${type};base64,${body.toString('base64')}`;
    const image = (await api.call('postImageStatus', { body: { url: dataUri('image/jpeg', SAMPLES.jpeg), caption: 'Vitrine nova', statusJidList: [fan.jid] } })).data;
    const video = (await api.call('postVideoStatus', { body: { url: dataUri('video/mp4', SAMPLES.mp4), caption: 'Bastidores', statusJidList: [fan.jid] } })).data;
    for (const [story, kind, bytes, caption] of [[image, 'image', SAMPLES.jpeg, 'Vitrine nova'], [video, 'video', SAMPLES.mp4, 'Bastidores']] as const) {
      const seen = await t.waitFor(() => sim.simulator.received(fan.number).find((m) => m.id === story.id && m.media), 15_000, `the fan's phone to decrypt the ${kind} story`);
      assert.deepEqual([seen.group, seen.fromNumber, seen.media?.kind, seen.media?.error], ['status@broadcast', account.number, kind, undefined], JSON.stringify(seen.media));
      const member = seen.message[`${kind}Message`] as { caption?: string; url?: string } | undefined;
      assert.equal(member?.caption, caption);
      assert.ok(member?.url?.startsWith('https://127.0.0.1:') || member?.url?.startsWith('https://localhost:'), `uploaded to the simulator's media host: ${member?.url}`);
      assert.deepEqual(sim.simulator.receivedMedia(fan.number, story.id).data, bytes);
    }
    assert.equal(sim.simulator.received(other.number).length, 0, 'media stories stay outside the audience too');

    await api.call('updateInstanceFlags', { query: { receiveStatusMessage: true } });
    const posted = await sim.simulator.postStatus(fan.number, 'Meu dia', [account.number]);
    const stored = await t.waitFor(async () => {
      const found = await api.call('listChatMessages', { params: { jid: 'status@broadcast' } });
      return found.data.find((m) => m.key.id === posted.id);
    }, 20_000, 'the contact\'s story in the status chat');
    assert.equal(stored.key.fromMe, false);
    assert.ok(JSON.stringify(stored.message).includes('Meu dia'));
  });
});
