import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import { DEFAULT_MEDIA_LIMITS, type ProductInput } from '@parley/core';
import { connectOpen, createHarness, type Harness } from './harness.js';
import { sampleImages } from './images.js';
import { startHttpProxy, startSocksProxy, type ConnectSeen, type LocalServer } from '@parley/testkit';
import { file, fixedResolver, redirect, spyOnFetch, startWebHost } from './web-host.js';

const PUBLIC = '93.184.215.14';
const NAMES: Record<string, string[]> = {
  'shop.example': [PUBLIC],
  'intranet.shop.example': ['10.1.2.3'],
  'split.shop.example': [PUBLIC, '127.0.0.1'],
  'loopback.shop.example': ['127.0.0.1'],
};
const resolveHost = fixedResolver(NAMES);
const MAX = 64 * 1024;
const product = (url: string): ProductInput => ({ name: 'Mug', description: '', currency: 'BRL', price: 20, originCountryCode: 'BR', images: [{ url }] });
const created = {
  id: '7043829157', name: 'Mug', description: '', price: 20, currency: 'BRL', imageUrls: { requested: 'https://mmg.whatsapp.net/m1' }, reviewStatus: {},
  availability: 'in stock' as const,
};


describe('user-supplied media URLs are fetched by the adapter, never by Baileys', () => {
  let png: Buffer;
  let web: LocalServer<string>;
  let proxy: LocalServer<ConnectSeen>;
  let h: Harness | undefined;
  let spy: ReturnType<typeof spyOnFetch>;
  let fetched: string[];

  before(async () => {
    png = (await sampleImages()).png;
    web = await startWebHost({
      '/mug.png': file('image/png', png),
      '/page.html': file('text/html', Buffer.from('<html></html>')),
      '/huge.png': file('image/png', Buffer.alloc(MAX + 1)),
      '/to-loopback': redirect('http://127.0.0.1/mug.png'),
      '/to-intranet': redirect('http://intranet.shop.example/mug.png'),
      '/to-mug': redirect('/mug.png'),
      // Sends the headers and part of the body, then stalls.
      '/stalls.png': (_req, res) => { res.writeHead(200, { 'content-type': 'image/png', 'content-length': 1000 }).write(Buffer.alloc(10)); },
    });
    proxy = await startHttpProxy(web.port);
    spy = spyOnFetch();
    fetched = spy.urls;
  });
  after(async () => {
    spy.restore();
    await proxy.close();
    await web.close();
  });
  afterEach(async () => {
    await h?.adapter.stop();
    h = undefined;
    fetched.length = 0;
    proxy.seen.length = 0;
    web.seen.length = 0;
  });

  async function open(options: { viaProxy: boolean; allowPrivateUrls?: boolean }) {
    h = await createHarness({
      // The loopback proxy stands in for a public one; the URLs fetched through it are still checked.
      resolveHost, allowPrivateUrls: options.allowPrivateUrls ?? false, allowPrivateProxy: true, mediaLimits: { ...DEFAULT_MEDIA_LIMITS, maxBytes: MAX, timeoutMs: 5000 },
      ...(options.viaProxy ? { instance: { proxy: `http://127.0.0.1:${proxy.port}` } } : {}),
    });
    const socket = await connectOpen(h);
    socket.results.set('productCreate', created);
    socket.results.set('productUpdate', created);
    return { socket, catalog: h.adapter.capabilities.catalog! };
  }

  it('the fake socket fetches a { url } image itself, as Baileys does (the spy sees it)', async () => {
    const { socket } = await open({ viaProxy: false });
    await socket.productCreate({ ...product(''), originCountryCode: 'BR', images: [{ url: `http://127.0.0.1:${web.port}/mug.png` }] });
    assert.deepStrictEqual(fetched, [`http://127.0.0.1:${web.port}/mug.png`]);
  });

  it('through the instance proxy: the image is fetched once, to the checked address, uploaded whole, and Baileys gets its URL', async () => {
    const { socket, catalog } = await open({ viaProxy: true });
    await catalog.createProduct(product('http://shop.example/to-mug'));
    const [[uploaded, mediaType, token]] = socket.callsTo('waUploadToServer') as [[Buffer, string, string]];
    assert.deepStrictEqual([uploaded, mediaType, token], [png, 'product-catalog-image', createHash('sha256').update(png).digest('base64')]);
    const [[create]] = socket.callsTo('productCreate') as [[{ images: unknown[] }]];
    assert.deepStrictEqual(create.images, [{ url: 'https://mmg.whatsapp.net/v/t62/product-catalog-image' }]);
    assert.deepStrictEqual(proxy.seen.map((s) => s.target), [`${PUBLIC}:80`, `${PUBLIC}:80`]);
    assert.deepStrictEqual(web.seen, ['/to-mug', '/mug.png']);
    assert.deepStrictEqual(fetched, []);
  });

  it('images already on WhatsApp\'s media servers stay URLs (Baileys keeps them unfetched)', async () => {
    const { socket, catalog } = await open({ viaProxy: true });
    await catalog.createProduct(product('https://mmg.whatsapp.net/v/t45/m1.jpg'));
    const [[create]] = socket.callsTo('productCreate') as [[{ images: unknown[] }]];
    assert.deepStrictEqual(create.images, [{ url: 'https://mmg.whatsapp.net/v/t45/m1.jpg' }]);
    assert.deepStrictEqual([proxy.seen, fetched], [[], []]);
  });

  for (const [path, what] of [['/to-loopback', 'a loopback address'], ['/to-intranet', 'a name resolving to a private address']]) {
    it(`a redirect to ${what} is refused before connecting; nothing reaches Baileys`, async () => {
      const { socket, catalog } = await open({ viaProxy: true });
      await assert.rejects(catalog.createProduct(product(`http://shop.example${path}`)), {
        status: 400, code: 'validation_failed', message: 'images[0].url points to a private network address (set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)',
      });
      assert.deepStrictEqual(proxy.seen.map((s) => s.target), [`${PUBLIC}:80`]);
      assert.deepStrictEqual(web.seen, [path]);
      assert.deepStrictEqual([socket.callsTo('productCreate'), fetched], [[], []]);
    });
  }

  it('a name with any private address is refused, directly and through the proxy', async () => {
    for (const viaProxy of [false, true]) {
      const { catalog } = await open({ viaProxy });
      for (const host of ['loopback.shop.example', 'split.shop.example']) {
        await assert.rejects(catalog.createProduct(product(`http://${host}:${web.port}/mug.png`)), { message: 'images[0].url points to a private network address (set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)' });
      }
      await h!.adapter.stop();
    }
    assert.deepStrictEqual([proxy.seen, web.seen, fetched], [[], [], []]);
  });

  it('the size limit and the content type apply; a failed fetch names the field', async () => {
    const { socket, catalog } = await open({ viaProxy: true });
    await assert.rejects(catalog.createProduct(product('http://shop.example/huge.png')), { status: 413, code: 'payload_too_large' });
    await assert.rejects(catalog.createProduct(product('http://shop.example/page.html')), {
      status: 400, message: 'images[0].url has content type text/html, which is not accepted here',
    });
    await assert.rejects(catalog.createProduct(product('http://shop.example/missing.png')), { status: 400, message: 'images[0].url could not be fetched: HTTP 404' });
    assert.deepStrictEqual([socket.callsTo('productCreate'), fetched], [[], []]);
  });

  it('a socks5h proxy is asked for the checked address, not the name (its resolver cannot rebind it)', async () => {
    const socks = await startSocksProxy(web.port);
    try {
      h = await createHarness({ resolveHost, allowPrivateProxy: true, instance: { proxy: `socks5h://127.0.0.1:${socks.port}` } });
      const socket = await connectOpen(h);
      socket.results.set('productCreate', created);
      await h.adapter.capabilities.catalog!.createProduct(product('http://shop.example/mug.png'));
      assert.deepStrictEqual(socks.seen.map((s) => [s.host, s.port]), [[PUBLIC, 80]]);
      assert.deepStrictEqual(socket.callsTo('waUploadToServer')[0]![0], png);
    } finally {
      await socks.close();
    }
  });

  it('a name is resolved once per connection: an answer that changes afterwards (DNS rebinding) is never used', async () => {
    const lookups: string[] = [];
    let answer = PUBLIC;
    h = await createHarness({
      instance: { proxy: `http://127.0.0.1:${proxy.port}` }, allowPrivateProxy: true,
      resolveHost: async (host) => {
        lookups.push(host);
        const now = answer;
        answer = '127.0.0.1';
        return [now];
      },
    });
    const socket = await connectOpen(h);
    socket.results.set('productCreate', created);
    await h.adapter.capabilities.catalog!.createProduct(product('http://rebind.shop.example/mug.png'));
    assert.deepStrictEqual([lookups, proxy.seen.map((s) => s.target)], [['rebind.shop.example'], [`${PUBLIC}:80`]]);
  });

  it('the whole fetch has the host\'s time limit', async () => {
    h = await createHarness({ resolveHost, mediaLimits: { ...DEFAULT_MEDIA_LIMITS, maxBytes: MAX, timeoutMs: 300 }, allowPrivateProxy: true, instance: { proxy: `http://127.0.0.1:${proxy.port}` } });
    const socket = await connectOpen(h);
    const started = Date.now();
    await assert.rejects(h.adapter.capabilities.catalog!.createProduct(product('http://shop.example/stalls.png')), {
      status: 400, message: 'images[0].url could not be fetched: timed out',
    });
    assert.ok(Date.now() - started < 3000);
    assert.deepStrictEqual(socket.callsTo('productCreate'), []);
  });

  it('with private URLs allowed, a direct fetch from loopback works (the host setting is honoured)', async () => {
    const { socket, catalog } = await open({ viaProxy: false, allowPrivateUrls: true });
    await catalog.updateProduct('7043829157', { images: [{ url: `http://127.0.0.1:${web.port}/mug.png` }] });
    const [[, update]] = socket.callsTo('productUpdate') as [[string, { images: unknown[] }]];
    assert.deepStrictEqual(update.images, [{ url: 'https://mmg.whatsapp.net/v/t62/product-catalog-image' }]);
    assert.deepStrictEqual(socket.callsTo('waUploadToServer')[0]![0], png);
    assert.deepStrictEqual([web.seen, fetched], [['/mug.png'], []]);
  });
});
