import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import type { MediaInput, OutgoingContent } from '@parley/core';
import { proto } from '@whiskeysockets/baileys';
import sharp from 'sharp';
import type { FakeSocket } from '../src/testing/index.js';
import { connectOpen, createHarness, GROUP_JID, NOW, NOW_S, PEER, PEER_JID, withoutMessageId, type Harness } from './harness.js';
import { sampleImages } from './images.js';
import { startHttpProxy, type ConnectSeen, type LocalServer } from '@parley/testkit';
import { file, fixedResolver, spyOnFetch, startWebHost } from './web-host.js';

const PUBLIC = '93.184.215.14';
const OWNER = '5511900000002';
const OWNER_JID = `${OWNER}@s.whatsapp.net`;

function media(data: Buffer, mimetype: string): MediaInput {
  return { data, mimetype, sha256: createHash('sha256').update(data).digest('hex') };
}

/** A catalog product as Baileys' `parseProductNode` answers it. */
function catalogProduct(id: string, patch: Record<string, unknown> = {}) {
  return {
    id, name: 'Mug', description: 'Stoneware, 300 ml', price: 49_900, currency: 'BRL', retailerId: 'sku-mug', url: 'https://shop.example/mug',
    isHidden: false, imageUrls: { requested: 'http://cdn.shop.example/mug-100.jpg', original: 'http://cdn.shop.example/mug.jpg' },
    reviewStatus: { whatsapp: 'APPROVED' }, availability: 'in stock', ...patch,
  };
}

describe('sends whose content is loaded or converted first (stickers, product cards, invite pictures)', () => {
  let images: Awaited<ReturnType<typeof sampleImages>>;
  let web: LocalServer<string>;
  let proxy: LocalServer<ConnectSeen>;
  let spy: ReturnType<typeof spyOnFetch>;
  let h: Harness;
  let socket: FakeSocket;

  before(async () => {
    images = await sampleImages();
    web = await startWebHost({ '/mug.jpg': file('image/jpeg', images.jpeg), '/group.jpg': file('image/jpeg', images.jpeg) });
    proxy = await startHttpProxy(web.port);
    spy = spyOnFetch();
    h = await createHarness({
      // The loopback proxy stands in for a public one; the URLs fetched through it are still checked.
      instance: { proxy: `http://127.0.0.1:${proxy.port}` }, allowPrivateProxy: true,
      resolveHost: fixedResolver({ 'cdn.shop.example': [PUBLIC], 'pps.shop.example': [PUBLIC] }),
    });
    socket = await connectOpen(h);
  });
  after(async () => {
    spy.restore();
    await h.adapter.stop();
    await proxy.close();
    await web.close();
  });
  afterEach(() => {
    socket.calls.length = 0;
    socket.results.clear();
    web.seen.length = 0;
    proxy.seen.length = 0;
    assert.deepStrictEqual(spy.urls, [], 'Baileys fetched a URL itself');
  });

  const send = (content: OutgoingContent) => h.adapter.capabilities.messaging!.send({ to: PEER, content });

  for (const [name, mimetype, animated] of [
    ['png', 'image/png', false], ['jpeg', 'image/jpeg', false], ['gif', 'image/gif', false], ['animatedGif', 'image/gif', true],
  ] as const) {
    it(`sticker from ${name === 'animatedGif' ? 'an animated GIF' : `a ${name.toUpperCase()}`}: WebP on a 512 × 512 canvas, isAnimated ${animated}`, async () => {
      const record = await send({ type: 'sticker', media: media(images[name], mimetype) });
      const [[jid, content, options]] = socket.callsTo('sendMessage') as [[string, { sticker: Buffer; mimetype: string; isAnimated: boolean }, object]];
      assert.deepStrictEqual([jid, withoutMessageId(options as Record<string, unknown>), content.mimetype, content.isAnimated], [PEER_JID, { timestamp: new Date(NOW) }, 'image/webp', animated]);
      assert.equal(content.sticker.subarray(8, 12).toString('latin1'), 'WEBP');
      const meta = await sharp(content.sticker, { animated: true }).metadata();
      assert.deepStrictEqual([meta.format, meta.width, meta.pageHeight ?? meta.height, meta.pages ?? 1], ['webp', 512, 512, animated ? 3 : 1]);
      const sticker = record.message.stickerMessage as { mimetype: string; isAnimated?: boolean };
      assert.deepStrictEqual([sticker.mimetype, sticker.isAnimated ?? false], ['image/webp', animated]);
    });
  }

  it('a WebP sticker goes as it is; animated only when it holds an ANIM chunk', async () => {
    const still = await sharp(images.png).webp().toBuffer();
    const animated = await sharp(images.animatedGif, { animated: true }).webp().toBuffer();
    await send({ type: 'sticker', media: media(still, 'image/webp') });
    await send({ type: 'sticker', media: media(animated, 'image/webp') });
    assert.deepStrictEqual(socket.callsTo('sendMessage').map(([, content]) => content), [
      { sticker: still, mimetype: 'image/webp', isAnimated: false }, { sticker: animated, mimetype: 'image/webp', isAnimated: true },
    ]);
  });

  it('a sticker that is not an image: 400, nothing sent', async () => {
    await assert.rejects(send({ type: 'sticker', media: media(Buffer.from('not an image'), 'image/png') }), {
      status: 400, message: 'the sticker must be a PNG, JPEG, GIF or WebP image',
    });
    assert.deepStrictEqual(socket.callsTo('sendMessage'), []);
  });

  it('product: the full card from the owner\'s catalog, the image fetched through the proxy and handed to Baileys as bytes', async () => {
    let page = 0;
    socket.results.delete('getCatalog');
    const pages = [
      { products: [catalogProduct('1111111111')], nextPageCursor: 'P2' },
      { products: [catalogProduct('7043829157')], nextPageCursor: undefined },
    ];
    // Answers page by page, like the catalog query does with its `after` cursor.
    const getCatalog = socket.getCatalog;
    socket.getCatalog = async (query) => {
      await getCatalog(query);
      return pages[page++]! as never;
    };
    const record = await send({ type: 'product', businessOwnerJid: OWNER, productId: '7043829157', catalogId: '998877' });
    assert.deepStrictEqual(socket.callsTo('getCatalog'), [[{ jid: OWNER_JID, limit: 100 }], [{ jid: OWNER_JID, limit: 100, cursor: 'P2' }]]);
    assert.deepStrictEqual(socket.callsTo('sendMessage').map(([jid, content, options]) => [jid, content, withoutMessageId(options as Record<string, unknown>)]), [[PEER_JID, {
      product: {
        productImage: images.jpeg, productId: '7043829157', title: 'Mug', description: 'Stoneware, 300 ml', currencyCode: 'BRL', priceAmount1000: 49_900,
        retailerId: 'sku-mug', url: 'https://shop.example/mug', productImageCount: 2,
      },
      businessOwnerJid: OWNER_JID,
    }, { timestamp: new Date(NOW) }]]);
    assert.deepStrictEqual([proxy.seen.map((s) => s.target), web.seen], [[`${PUBLIC}:80`], ['/mug.jpg']]);
    // Baileys uploaded the bytes and built the card's image message itself (fileSha256 of the JPEG).
    const card = proto.Message.fromObject(record.message).productMessage!;
    assert.deepStrictEqual([card.product?.title, card.businessOwnerJid, Buffer.from(card.product!.productImage!.fileSha256!).toString('hex')],
      ['Mug', OWNER_JID, createHash('sha256').update(images.jpeg).digest('hex')]);
    socket.getCatalog = getCatalog;
  });

  it('product: an id not in the owner\'s catalog is a 404 and nothing is sent', async () => {
    socket.results.set('getCatalog', { products: [catalogProduct('1111111111')], nextPageCursor: undefined });
    await assert.rejects(send({ type: 'product', businessOwnerJid: OWNER, productId: '7043829157', catalogId: '998877' }), {
      status: 404, code: 'product_not_found', message: `product 7043829157 in the catalog of ${OWNER_JID} not found`,
    });
    assert.deepStrictEqual([socket.callsTo('sendMessage'), web.seen], [[], []]);
  });

  it('group-invite: the group picture is fetched through the proxy and carried as the card\'s thumbnail', async () => {
    socket.results.set('profilePictureUrl', 'http://pps.shop.example/group.jpg');
    const record = await send({ type: 'group-invite', groupJid: GROUP_JID, groupName: 'Parley customers', inviteCode: 'AbCdEf123456' });
    const [[jid, message, options]] = socket.callsTo('relayMessage') as [[string, proto.IMessage, object]];
    assert.deepStrictEqual([jid, options], [PEER_JID, { messageId: record.key.id }]);
    const invite = message.groupInviteMessage!;
    assert.deepStrictEqual({ ...invite, jpegThumbnail: Buffer.from(invite.jpegThumbnail!) }, {
      inviteCode: 'AbCdEf123456', inviteExpiration: NOW_S + 259_200, caption: '', groupJid: GROUP_JID, groupName: 'Parley customers', jpegThumbnail: images.jpeg,
    });
    assert.deepStrictEqual([socket.callsTo('profilePictureUrl'), web.seen], [[[GROUP_JID, 'preview']], ['/group.jpg']]);
  });
});
