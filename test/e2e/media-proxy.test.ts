import assert from 'node:assert/strict';
import { lookup } from 'node:dns/promises';
import { after, before, describe, it } from 'node:test';
import { startHttpProxy, type ConnectSeen, type LocalServer } from '@parley/testkit';
import { apiErrorAnswer, fieldError } from '../support/api-error.js';
import { SAMPLES, sha256Hex } from '../support/media-server.js';
import { MessagingPair } from '../support/messaging.js';

/** URLs fetched for an instance (send media, pictures, stories) go through its proxy (POST /{key}/instance/proxy). */
describe('media URLs of an instance with a proxy', () => {
  let p: MessagingPair;
  let proxy: LocalServer<ConnectSeen>;
  let mediaPort: number;

  before(async () => {
    p = await MessagingPair.start({}, ['5511900000401', '5511900000402']);
    mediaPort = Number(new URL(p.media.url).port);
    proxy = await startHttpProxy(mediaPort);
  });
  after(async () => {
    await proxy.close();
    await p.stop();
  });

  const setProxy = async (value: string) => {
    const res = await p.t.client(p.alice.key).call('setProxy', { body: { proxy: value } });
    assert.equal(res.status, 200);
  };

  it('an image sent by URL goes through the proxy, which is asked (with the credentials) for the checked address, not the name', async () => {
    await setProxy(`http://media-user:s3cret@127.0.0.1:${proxy.port}`);
    const url = `http://localhost:${mediaPort}/pics/proxied.png`;
    p.media.serve('/pics/proxied.png', { body: SAMPLES.png, type: 'image/png' });
    const record = await p.sendVia('sendImage', { to: p.bob.number, url });
    const got = await p.received(record.key.id);
    assert.equal((got.message.content as { media: { sha256: string } }).media.sha256, sha256Hex(SAMPLES.png));
    assert.equal(p.media.hitsOf('/pics/proxied.png'), 1);
    // `localhost` was resolved by the server and the CONNECT names the address it checked.
    const addresses = (await lookup('localhost', { all: true })).map((a) => (a.family === 6 ? `[${a.address}]:${mediaPort}` : `${a.address}:${mediaPort}`));
    assert.equal(proxy.seen.length, 1);
    assert.ok(addresses.includes(proxy.seen[0]!.target), `CONNECT ${proxy.seen[0]!.target} names one of ${addresses.join(', ')}`);
    assert.equal(proxy.seen[0]!.authorization, `Basic ${Buffer.from('media-user:s3cret').toString('base64')}`);
  });

  it('every URL fetched for the instance goes through its proxy: a profile picture too', async () => {
    proxy.seen.length = 0;
    p.media.serve('/pics/me.png', { body: SAMPLES.png, type: 'image/png' });
    const res = await p.t.client(p.alice.key).call('setProfilePicture', { body: { url: `${p.media.url}/pics/me.png` } });
    assert.equal(res.status, 200);
    assert.deepEqual(proxy.seen.map((s) => s.target), [`127.0.0.1:${mediaPort}`]);
    assert.equal(p.media.hitsOf('/pics/me.png'), 1);
  });

  it('a proxy that cannot reach the media host fails the send with a 400, and the media host is never asked directly', async () => {
    const closed = await startHttpProxy(1);
    try {
      await setProxy(`http://127.0.0.1:${closed.port}`);
      const url = p.media.serve('/pics/unreachable.png', { body: SAMPLES.png, type: 'image/png' });
      await assert.rejects(p.t.client(p.alice.key).call('sendImage', { body: { to: p.bob.number, url } }), apiErrorAnswer(fieldError(`body.url could not be fetched: the proxy answered 502 to CONNECT 127.0.0.1:${mediaPort}`)));
      assert.deepEqual(closed.seen.map((s) => s.target), [`127.0.0.1:${mediaPort}`]);
      assert.equal(p.media.hitsOf('/pics/unreachable.png'), 0);
    } finally {
      await closed.close();
    }
  });

  it('without a proxy the URL is fetched directly again', async () => {
    await setProxy('');
    proxy.seen.length = 0;
    const url = p.media.serve('/pics/direct.png', { body: SAMPLES.png, type: 'image/png' });
    const record = await p.sendVia('sendImage', { to: p.bob.number, url });
    await p.received(record.key.id);
    assert.equal(p.media.hitsOf('/pics/direct.png'), 1);
    assert.equal(proxy.seen.length, 0);
  });
});
