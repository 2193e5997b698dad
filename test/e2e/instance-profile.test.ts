import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AnswerRecorder } from '../support/answer-recorder.js';
import { apiError, apiErrorAnswer, type ErrorAnswer } from '../support/api-error.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { decodePngDataUri, PNG_SIGNATURE, startLocalHttp, type LocalHttp } from './fixtures/local-http.js';

const NOT_CONNECTED: ErrorAnswer = { status: 409, error: { code: 'not_connected', message: 'the instance is not connected' } };

/** Spec 4.1's profile and proxy operations over real HTTP (the rest of 4.1 is in instance.test.ts). */
describe('spec 4.1 instance profile and proxy over real HTTP', () => {
  let t: TestServer;
  let recorder: AnswerRecorder;
  let media: LocalHttp;
  let png: Buffer;

  before(async () => {
    t = await startTestServer();
    recorder = new AnswerRecorder(t);
    // A real PNG: the QR code a connect answers.
    const qr = await t.client((await t.createInstance({ number: '5511910000090' })).key).call('connectInstance');
    png = decodePngDataUri(qr.image);
    assert.deepEqual(png.subarray(0, 8), PNG_SIGNATURE);
    media = await startLocalHttp((req, res) => {
      if (req.url === '/avatar.png') {
        res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      } else if (req.url === '/notes.txt') {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('not an image');
      } else {
        res.writeHead(404).end();
      }
    });
  });
  after(async () => {
    await media.close();
    await t.stop();
  });

  const get = async (key: string) => (await t.client(key).call('getInstance')).instance as Record<string, any>;
  /** The picture URL answers the placeholder SVG. */
  const servesPlaceholder = async (key: string) => {
    const res = await t.request('GET', `/${key}/instance/profile/picture`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/svg+xml');
    assert.match(res.body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*>.*<\/svg>$/);
    assert.doesNotMatch(res.body, /<script/i);
  };

  describe('profile: name, status text, picture', () => {
    it('PUT profile/name answers the user and GET shows the new name', async () => {
      const created = await t.connectedSandbox({ name: 'before', number: '5511910000016' });
      const res = await t.client(created.key).call('setProfileName', { body: { name: 'Parley Support' } });
      assert.deepEqual(res, { status: 200, data: { id: '5511910000016@s.whatsapp.net', lid: res.data?.lid, name: 'Parley Support', imageProfile: `${t.server.context.host.publicUrl}/${created.key}/instance/profile/picture` } });
      assert.equal((await get(created.key)).user.name, 'Parley Support');
    });

    it('PUT status answers the text and stores it in the phone\'s session', async () => {
      const created = await t.connectedSandbox({ number: '5511910000017' });
      const res = await t.client(created.key).call('setProfileStatus', { body: { text: 'Available 9–18h' } });
      assert.deepEqual(res, { status: 200, data: { text: 'Available 9–18h' } });
      const session = await t.server.context.storage.state.get<{ about?: string }>(`${created.id}:sandbox`, 'session');
      assert.equal(session?.about, 'Available 9–18h');
    });

    it('PUT profile/picture fetches the image from a local URL; the picture is served; DELETE removes it', async () => {
      const created = await t.connectedSandbox({ name: 'pictured', number: '5511910000018' });
      const api = t.client(created.key);
      const imageProfile = `${t.server.context.host.publicUrl}/${created.key}/instance/profile/picture`;
      // Before any picture: the stable URL serves the placeholder.
      assert.equal((await get(created.key)).user.imageProfile, imageProfile);
      await servesPlaceholder(created.key);

      const res = await api.call('setProfilePicture', { body: { url: `${media.url}/avatar.png` } });
      assert.deepEqual(res, { status: 200, data: { id: '5511910000018@s.whatsapp.net', lid: res.data?.lid, name: 'pictured', imageProfile } });
      assert.equal((await get(created.key)).user.imageProfile, imageProfile);
      // The URL of imageProfile itself (not the route table) serves the bytes that were set.
      const direct = await fetch(imageProfile);
      assert.equal(direct.status, 200);
      assert.equal(direct.headers.get('content-type'), 'image/png');
      assert.equal(direct.headers.get('cache-control'), 'no-cache');
      assert.deepEqual(Buffer.from(await direct.arrayBuffer()), png);
      const typed: unknown = await recorder.instance(created.key).call('getProfilePicture');
      assert.ok(typed instanceof Uint8Array, 'a PNG answer is bytes');
      assert.deepEqual(Buffer.from(typed), png);
      // The sandbox phone has the same picture, on its public pictures route.
      const picture = () => recorder.client.call('sandbox_get_pictures_id', { params: { id: created.id } });
      const served: unknown = await picture();
      assert.equal(recorder.last.status, 200);
      assert.equal(recorder.last.headers.get('content-type'), 'image/png');
      assert.deepEqual(Buffer.from(served as Uint8Array), png);

      const removed = await api.call('removeProfilePicture');
      assert.deepEqual(removed, { status: 200, data: { id: '5511910000018@s.whatsapp.net', lid: res.data?.lid, name: 'pictured', imageProfile } });
      assert.equal((await get(created.key)).user.imageProfile, imageProfile);
      await servesPlaceholder(created.key);
      await assert.rejects(picture(), apiError(404, 'not_found'));
    });

    it('GET profile/picture: the placeholder while not connected, 404 for an unknown key', async () => {
      const created = await t.createInstance({ number: '5511910000060' });
      assert.equal((await get(created.key)).user, null);
      await servesPlaceholder(created.key);
      const unknown = await t.request('GET', '/noSuchKeyAAAAAAAAAAAAAAAAAAAAAAAAAA/instance/profile/picture');
      assert.deepEqual(unknown.body, { status: 404, error: { code: 'instance_not_found', message: 'instance not found' } });
    });

    it('accepts a base64 data URI as the picture', async () => {
      const created = await t.connectedSandbox({ number: '5511910000019' });
      const res = await t.client(created.key).call('setProfilePicture', { body: { url: `data:image/png;base64,${png.toString('base64')}` } });
      assert.equal(res.status, 200);
      assert.equal(res.data?.imageProfile, `${t.server.context.host.publicUrl}/${created.key}/instance/profile/picture`);
      const served = await fetch(res.data!.imageProfile!);
      assert.equal(served.headers.get('content-type'), 'image/png');
      assert.deepEqual(Buffer.from(await served.arrayBuffer()), png);
    });

    it('refuses bad input naming the field, and answers 409 while not connected, changing nothing', async () => {
      const created = await t.connectedSandbox({ name: 'strict', number: '5511910000020' });
      const api = t.client(created.key);
      const typed: [string, () => Promise<unknown>, string][] = [
        ['long name', () => api.call('setProfileName', { body: { name: 'x'.repeat(26) } }), 'body.name must NOT have more than 25 characters'],
        ['empty name', () => api.call('setProfileName', { body: { name: '' } }), 'body.name must NOT have fewer than 1 characters'],
        ['long status', () => api.call('setProfileStatus', { body: { text: 'x'.repeat(140) } }), 'body.text must NOT have more than 139 characters'],
        ['text file', () => api.call('setProfilePicture', { body: { url: `${media.url}/notes.txt` } }), 'body.url has content type text/plain, which is not a valid image'],
        ['missing file', () => api.call('setProfilePicture', { body: { url: `${media.url}/missing.png` } }), 'body.url could not be fetched: HTTP 404'],
        ['ftp URL', () => api.call('setProfilePicture', { body: { url: 'ftp://127.0.0.1/a.png' } }), 'body.url must use http, https'],
        ['text data URI', () => api.call('setProfilePicture', { body: { url: 'data:text/plain;base64,aGk=' } }), 'body.url has content type text/plain, which is not a valid image'],
      ];
      for (const [what, call, message] of typed) await assert.rejects(call(), apiError(400, 'validation_failed', message), what);
      // Bodies the typed client refuses (a missing member, a wrong type, an unknown member): sent raw.
      const untyped: [string, unknown, string][] = [
        ['/instance/profile/name', {}, 'body.name is required'],
        ['/instance/profile/name', { name: 7 }, 'body.name must be string'],
        ['/instance/status', { status: 'x' }, 'body.text is required; body.status is not allowed'],
      ];
      for (const [path, body, message] of untyped) {
        const res = await t.request('PUT', `/${created.key}${path}`, body);
        assert.equal(res.status, 400, `${path} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.error.message, message);
      }
      assert.deepEqual((await get(created.key)).user, {
        id: '5511910000020@s.whatsapp.net', lid: (await get(created.key)).user.lid, name: 'strict',
        imageProfile: `${t.server.context.host.publicUrl}/${created.key}/instance/profile/picture`,
      });
      await servesPlaceholder(created.key);

      const offline = t.client((await t.createInstance({ number: '5511910000021' })).key);
      const calls: [string, () => Promise<unknown>][] = [
        ['setProfileName', () => offline.call('setProfileName', { body: { name: 'n' } })],
        ['setProfileStatus', () => offline.call('setProfileStatus', { body: { text: 't' } })],
        ['setProfilePicture', () => offline.call('setProfilePicture', { body: { url: `${media.url}/avatar.png` } })],
        ['removeProfilePicture', () => offline.call('removeProfilePicture')],
      ];
      for (const [what, call] of calls) await assert.rejects(call(), apiErrorAnswer(NOT_CONNECTED), what);
    });
  });

  describe('POST /{key}/instance/proxy', () => {
    it('stores the proxy, answers it with the password redacted; an empty value removes it', async () => {
      const created = await t.createInstance({ number: '5511910000022' });
      const api = t.client(created.key);
      const res = await api.call('setProxy', { body: { proxy: 'http://agent:s3cr3t-pass@proxy.example.com:3128' } });
      assert.deepEqual(res, { status: 200, data: { proxy: 'http://***@proxy.example.com:3128' } });
      assert.ok(!JSON.stringify(res).includes('s3cr3t-pass'));
      assert.equal((await t.server.context.storage.instances.get(created.id))?.proxy, 'http://agent:s3cr3t-pass@proxy.example.com:3128');
      assert.ok(!JSON.stringify(await api.call('getInstance')).includes('s3cr3t-pass'));

      const socks = await api.call('setProxy', { body: { proxy: ' socks5://127.0.0.1:1080 ' } });
      assert.deepEqual(socks, { status: 200, data: { proxy: 'socks5://127.0.0.1:1080' } });
      assert.equal((await t.server.context.storage.instances.get(created.id))?.proxy, 'socks5://127.0.0.1:1080');

      const cleared = await api.call('setProxy', { body: { proxy: '' } });
      assert.deepEqual(cleared, { status: 200, data: { proxy: '' } });
      assert.equal((await t.server.context.storage.instances.get(created.id))?.proxy, undefined);
    });

    it('refuses other schemes and non-URLs, changing nothing', async () => {
      const created = await t.createInstance({ number: '5511910000023' });
      const api = t.client(created.key);
      await api.call('setProxy', { body: { proxy: 'http://proxy.example.com:3128' } });
      const typed: [string, string][] = [
        ['ftp://proxy.example.com:21', 'body.proxy must use http, https, socks, socks4, socks5, socks5h'],
        ['proxy.example.com:3128', 'body.proxy must use http, https, socks, socks4, socks5, socks5h'],
        ['not a url', 'body.proxy must be an absolute URL'],
      ];
      for (const [proxy, message] of typed) {
        await assert.rejects(api.call('setProxy', { body: { proxy } }), apiError(400, 'validation_failed', message), proxy);
      }
      // Bodies the typed client refuses (a wrong type, a missing member): sent raw.
      const untyped: [unknown, string][] = [
        [{ proxy: 3128 }, 'body.proxy must be string'],
        [{}, 'body.proxy is required'],
      ];
      for (const [body, message] of untyped) {
        const res = await t.request('POST', `/${created.key}/instance/proxy`, body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.error.message, message);
      }
      assert.equal((await t.server.context.storage.instances.get(created.id))?.proxy, 'http://proxy.example.com:3128');
    });
  });
});
