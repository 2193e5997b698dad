import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHttpReceiver, type HttpReceiver } from '@parley/testkit';
import { CLOUD_VERSION, cloudRequest } from '../support/cloud-api.js';
import { sha256Hex } from '../support/media-server.js';
import { metaFixture, PNG_PIXEL, postWebhook } from '../support/meta-channels.js';
import { IG_SECRET, midOf, SocialServer } from '../support/social-server.js';

/** A few bytes standing in for a reel's video on Meta's CDN. */
const REEL = Buffer.from('\x00\x00\x00\x18ftypmp42 a reel of the summer collection', 'latin1');

/**
 * An Instagram share of a reel or post: the meta webhook names its media by Instagram's id of it (not
 * the message id), and `GET /{version}/{media-id}` with that id describes it and its url downloads it
 * (docs/cloud-api.md, Media). The mock Graph API stands in for Meta's CDN.
 */
describe('Cloud API: the media of an Instagram share of a reel or post', () => {
  const s = new SocialServer('sqlite');
  let hooks: HttpReceiver;
  before(async () => {
    hooks = await startHttpReceiver();
  });
  after(() => hooks.close());

  /** The fixture `name` with its CDN links pointed at `path` on the mock Graph API, posted signed. */
  async function receive(name: 'ig-reel' | 'ig-post', path: string): Promise<void> {
    const fixture = JSON.parse(metaFixture('instagram', name).toString('utf8'));
    for (const attachment of fixture.entry[0].messaging[0].message.attachments) attachment.payload.url = `${s.igGraph.url}${path}`;
    const answer = await postWebhook(s.t, 'instagram', Buffer.from(JSON.stringify(fixture)), { appSecret: IG_SECRET });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  }

  /** The `messages[]` item of the instance's meta webhook for message `mid`. */
  const delivered = (path: string, mid: string) => s.t.waitFor(() => hooks.requests.filter((r) => r.url === path)
    .flatMap((r) => (r.json as any).entry.flatMap((e: any) => e.changes.flatMap((c: any) => c.value.messages ?? [])))
    .find((m: any) => m.id === mid), 10_000, `the meta webhook of ${mid}`);

  it('describes and downloads a shared reel and a shared post by the ids the meta webhook carries', async () => {
    const shop = await s.instance('ig-shares', { allowWebhook: true, webhookFormat: 'meta', webhookMessage: `${hooks.url}/ig-shares` });
    await s.linkInstagram(shop.key);
    s.igGraph.on('GET', '/cdn/reel.mp4', { status: 200, body: REEL, contentType: 'video/mp4' });
    s.igGraph.on('GET', '/cdn/post.png', { status: 200, body: PNG_PIXEL, contentType: 'image/png' });
    await receive('ig-reel', '/cdn/reel.mp4');
    await receive('ig-post', '/cdn/post.png');

    const reel = await delivered('/ig-shares', midOf('instagram', 'ig-reel'));
    assert.deepEqual([reel.type, reel.video.id, reel.video.caption], ['video', '18034567890123456', 'Summer collection drop']);
    const post = await delivered('/ig-shares', midOf('instagram', 'ig-post'));
    assert.deepEqual([post.type, post.image.id], ['image', '18139494541428835']);

    for (const [id, bytes, type] of [[reel.video.id, REEL, 'video/mp4'], [post.image.id, PNG_PIXEL, 'image/png']] as const) {
      const described = await cloudRequest(s.t, shop.key, 'GET', `/${CLOUD_VERSION}/${id}`);
      assert.equal(described.status, 200, JSON.stringify(described.body));
      assert.deepEqual(described.body, {
        messaging_product: 'whatsapp', id, url: described.body.url, mime_type: type, sha256: sha256Hex(bytes), file_size: bytes.length,
      });
      const download = await fetch(described.body.url, { headers: { authorization: `Bearer ${shop.key}` } });
      assert.equal(download.status, 200);
      assert.equal(download.headers.get('content-type'), type);
      assert.deepEqual(Buffer.from(await download.arrayBuffer()), bytes);
    }

    // Another instance's token reaches none of it: its id is unknown there.
    const other = await s.instance('ig-shares-other');
    const foreign = await cloudRequest(s.t, other.key, 'GET', `/${CLOUD_VERSION}/${reel.video.id}`);
    assert.deepEqual([foreign.status, foreign.body.error.code, foreign.body.error.error_subcode], [404, 100, 33]);
  });

  it('answers the Cloud API\'s "object does not exist" with the reason once Meta\'s link expired', async () => {
    const shop = await s.instance('ig-expired');
    await s.linkInstagram(shop.key);
    s.igGraph.on('GET', '/cdn/expired.mp4', { status: 403, body: { error: 'URL signature expired' } });
    await receive('ig-reel', '/cdn/expired.mp4');
    await s.t.settle();
    const described = await cloudRequest(s.t, shop.key, 'GET', `/${CLOUD_VERSION}/18034567890123456`);
    assert.deepEqual([described.status, described.body.error.code, described.body.error.error_subcode], [404, 100, 33]);
    assert.match(described.body.error.error_data.details, /no longer available: Instagram's link answered HTTP 403 .*turn save_media on/);
  });
});
