import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import type { MessageRecord } from '@parley/core';
import { encryptedStream } from '@whiskeysockets/baileys';
import { connectOpen, createHarness, PEER_JID } from './harness.js';
import { startHttpProxy, startMediaHost, startSocksProxy, type LocalServer } from '@parley/testkit';
import { fixedResolver } from './web-host.js';

// Fixtures live in the source tree; the compiled test runs from dist/test.
const fixtures = new URL('../../test/fixtures/', import.meta.url);
const PLAIN = Buffer.from('a JPEG that only the proxy path can fetch');
/** WhatsApp's media host, as the test's resolver answers it: a public address, which only the proxy path reaches here. */
const MEDIA_ADDRESS = '157.240.0.60';
const resolveHost = fixedResolver({ 'mmg.whatsapp.net': [MEDIA_ADDRESS] });

/**
 * Media downloads through the instance proxy (Baileys downloads with the global fetch). The media host's
 * name is resolved and checked here, and the proxy is asked for that checked address (the sender of a
 * message names the host: see download-guard.test.ts); TLS is still verified against the name.
 */
describe('media downloads through the instance proxy (Baileys downloads with the global fetch)', () => {
  let tls: { key: string; cert: string };
  let record: MessageRecord;
  let host: LocalServer<string>;

  before(async () => {
    tls = {
      key: await readFile(new URL('media-host.key.pem', fixtures), 'utf8'),
      cert: await readFile(new URL('media-host.cert.pem', fixtures), 'utf8'),
    };
    // Real WhatsApp media: encrypted by Baileys, decrypted by Baileys on the way back.
    const enc = await encryptedStream(PLAIN, 'image');
    const body = await readFile(enc.encFilePath);
    await rm(enc.encFilePath, { force: true });
    host = await startMediaHost(tls, body);
    record = {
      key: { remoteJid: PEER_JID, fromMe: false, id: '3EB0A1B2C3D4E5F60708090B' }, messageTimestamp: '1735700002', status: 'DELIVERY_ACK',
      message: {
        imageMessage: {
          url: 'https://mmg.whatsapp.net/v/t62.7118-24/img.enc?ccb=11-4', directPath: '/v/t62.7118-24/img.enc?ccb=11-4', mimetype: 'image/jpeg',
          mediaKey: enc.mediaKey.toString('base64'), fileSha256: enc.fileSha256.toString('base64'),
          fileEncSha256: enc.fileEncSha256.toString('base64'), fileLength: String(enc.fileLength),
        },
      },
    };
  });
  after(() => host.close());

  async function download(proxy: string) {
    const h = await createHarness({ instance: { proxy }, mediaTls: { ca: tls.cert }, allowPrivateUrls: false, allowPrivateProxy: true, resolveHost });
    await connectOpen(h);
    try {
      return await h.adapter.capabilities.messaging!.downloadMedia!(record);
    } finally {
      await h.adapter.stop();
    }
  }

  it('an http proxy: one CONNECT to the media host\'s checked address, with the proxy credentials; the media decrypts', async () => {
    const proxy = await startHttpProxy(host.port);
    try {
      const before = host.seen.length;
      assert.deepStrictEqual(await download(`http://media:pr0xy@127.0.0.1:${proxy.port}`), { data: PLAIN, mimetype: 'image/jpeg' });
      assert.deepStrictEqual(proxy.seen, [{ target: `${MEDIA_ADDRESS}:443`, authorization: `Basic ${Buffer.from('media:pr0xy').toString('base64')}` }]);
      assert.deepStrictEqual(host.seen.slice(before), ['/v/t62.7118-24/img.enc?ccb=11-4']);
    } finally {
      await proxy.close();
    }
  });

  it('a socks5h proxy: one CONNECT to the media host\'s checked address (not left to the proxy\'s resolver), with the proxy credentials; the media decrypts', async () => {
    const proxy = await startSocksProxy(host.port);
    try {
      const before = host.seen.length;
      assert.deepStrictEqual(await download(`socks5h://media:pr0xy@127.0.0.1:${proxy.port}`), { data: PLAIN, mimetype: 'image/jpeg' });
      assert.deepStrictEqual(proxy.seen, [{ host: MEDIA_ADDRESS, port: 443, user: 'media', password: 'pr0xy' }]);
      assert.deepStrictEqual(host.seen.slice(before), ['/v/t62.7118-24/img.enc?ccb=11-4']);
    } finally {
      await proxy.close();
    }
  });

  for (const drop of [false, true]) {
    it(`a proxy that cannot reach the media host (${drop ? 'drops the connection' : 'answers 502'}): one attempt, a 502 upstream error, no direct download`, async () => {
      const proxy = await startHttpProxy(1, { drop });
      const before = host.seen.length;
      try {
        await assert.rejects(download(`http://127.0.0.1:${proxy.port}`), { status: 502, code: 'upstream_error' });
        assert.deepStrictEqual(proxy.seen.map((s) => s.target), [`${MEDIA_ADDRESS}:443`]);
        assert.equal(host.seen.length, before);
      } finally {
        await proxy.close();
      }
    });
  }
});
