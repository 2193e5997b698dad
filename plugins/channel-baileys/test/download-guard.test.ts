import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, afterEach, before, describe, it } from 'node:test';
import type { MessageRecord } from '@parley/core';
import type { Dispatcher } from 'undici';
import { startCountingListener, startHttpProxy, type ConnectSeen, type CountingListener, type LocalServer } from '@parley/testkit';
import { connectOpen, createHarness, PEER_JID, type Harness } from './harness.js';
import { fixedResolver, redirect, startWebHost } from './web-host.js';

const PUBLIC = '93.184.215.14';
const PRIVATE_HINT = 'set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs';

/**
 * An image message as a WhatsApp contact can send it: the media's `url` and `directPath` are the
 * sender's to choose. Baileys (rc14 `downloadContentFromMessage`) downloads `directPath` from the
 * host of `url`, or `url` itself without a `directPath`, with the global `fetch` — so the link can
 * name any address, the server's own loopback included.
 */
function imageFrom(media: { url: string; directPath?: string }): MessageRecord {
  return {
    key: { remoteJid: PEER_JID, fromMe: false, id: `3EB0${randomBytes(8).toString('hex').toUpperCase()}` }, messageTimestamp: '1735700002',
    status: 'DELIVERY_ACK',
    message: {
      imageMessage: {
        ...media, mimetype: 'image/jpeg', mediaKey: randomBytes(32).toString('base64'),
        fileSha256: randomBytes(32).toString('base64'), fileEncSha256: randomBytes(32).toString('base64'), fileLength: '1000',
      },
    },
  };
}

/**
 * Media downloads of received messages go through Baileys' real `downloadMediaMessage` (the
 * driver's default downloader) and must never reach a private address the sender named: a loopback
 * listener counts every connection, and must count none.
 */
describe('media links of received WhatsApp messages cannot reach private networks', () => {
  let listener: CountingListener;
  let web: LocalServer<string>;
  let proxy: LocalServer<ConnectSeen>;
  let h: Harness | undefined;

  before(async () => {
    listener = await startCountingListener();
    // A public CDN stand-in (reached through the proxy only) that redirects to the loopback listener.
    web = await startWebHost({ '/v/t62/img.enc': redirect(`http://127.0.0.1:${listener.port}/img.enc`) });
    proxy = await startHttpProxy(web.port);
  });
  afterEach(async () => {
    await h?.adapter.stop();
    h = undefined;
  });
  after(async () => {
    await proxy.close();
    await web.close();
    await listener.close();
  });

  async function download(record: MessageRecord, input: Parameters<typeof createHarness>[0] = {}) {
    h = await createHarness({ resolveHost: fixedResolver({ 'media.evil.example': ['127.0.0.1'], 'cdn.shop.example': [PUBLIC] }), ...input });
    await connectOpen(h);
    return h.adapter.capabilities.messaging!.downloadMedia!(record);
  }

  const literal = () => [
    `http://127.0.0.1:${listener.port}/img.enc`,
    `http://2130706433:${listener.port}/img.enc`,
    `http://0177.0.0.1:${listener.port}/img.enc`,
    `http://0.0.0.0:${listener.port}/img.enc`,
    `http://[::ffff:127.0.0.1]:${listener.port}/img.enc`,
  ];

  it('a private address literal in `url` (loopback in every spelling): a 502, nothing connects', async () => {
    for (const url of literal()) {
      await assert.rejects(download(imageFrom({ url })), (err: { status?: number; message?: string }) => {
        assert.equal(err.status, 502, url);
        assert.match(err.message ?? '', /private address/, url);
        return true;
      });
      await h!.adapter.stop();
      h = undefined;
    }
    assert.equal(listener.connections(), 0);
  });

  it('`directPath` on the host of a `url` whose name resolves to loopback: refused when connecting, nothing connects', async () => {
    await assert.rejects(
      download(imageFrom({ url: `https://media.evil.example:${listener.port}/anything`, directPath: '/v/t62/img.enc' })),
      { status: 502, message: /media\.evil\.example resolves to a private address \(127\.0\.0\.1\)/ },
    );
    assert.equal(listener.connections(), 0);
  });

  it('through the instance proxy: the private address is refused before the proxy is asked', async () => {
    const before = proxy.seen.length;
    await assert.rejects(download(imageFrom({ url: `http://127.0.0.1:${listener.port}/img.enc` }), {
      instance: { proxy: `http://127.0.0.1:${proxy.port}` }, allowPrivateProxy: true,
    }), { status: 502 });
    assert.deepStrictEqual(proxy.seen.slice(before), []);
    assert.equal(listener.connections(), 0);
  });

  it('a public host that redirects to loopback: the hop is refused; the proxy was asked for the public address only', async () => {
    const before = proxy.seen.length;
    await assert.rejects(download(imageFrom({ url: 'http://cdn.shop.example/v/t62/img.enc' }), {
      instance: { proxy: `http://127.0.0.1:${proxy.port}` }, allowPrivateProxy: true,
    }), { status: 502, message: /private address/ });
    assert.deepStrictEqual(proxy.seen.slice(before).map((s) => s.target), [`${PUBLIC}:80`]);
    assert.deepStrictEqual(web.seen, ['/v/t62/img.enc']);
    assert.equal(listener.connections(), 0);
  });

  it('Baileys\' own downloads (history-sync and app-state blobs: socket option `options`) get the same guarded dispatcher', async () => {
    h = await createHarness();
    const socket = await connectOpen(h);
    const { dispatcher } = socket.config.options as { dispatcher?: Dispatcher };
    assert.ok(dispatcher);
    const failure = await fetch(`http://127.0.0.1:${listener.port}/history.enc`, { dispatcher } as RequestInit).then(() => undefined, (err: Error) => err);
    assert.match((failure?.cause as Error | undefined)?.message ?? '', /127\.0\.0\.1 resolves to a private address/);
    assert.equal(listener.connections(), 0);
  });

  it('with private URLs allowed (PARLEY_ALLOW_PRIVATE_URLS=1) the same link is fetched', async () => {
    await assert.rejects(download(imageFrom({ url: `http://127.0.0.1:${listener.port}/img.enc` }), { allowPrivateUrls: true }), { status: 502 });
    assert.equal(listener.connections(), 1);
  });
});
