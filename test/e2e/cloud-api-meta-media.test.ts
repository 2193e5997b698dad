import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHttpReceiver, type HttpReceiver } from '@parley/testkit';
import { CLOUD_VERSION, cloudRequest } from '../support/cloud-api.js';
import { SAMPLES, sha256Hex } from '../support/media-server.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/** The `meta` webhook format's media ids resolve through the Cloud API media routes (docs/cloud-api.md). */
describe('Cloud API: the media ids of a meta-format webhook', () => {
  let t: TestServer;
  let receiver: HttpReceiver;
  let alice: { id: string; key: string };
  let bob: { id: string; key: string };
  const BOB = '5511900000742';

  before(async () => {
    t = await startTestServer();
    receiver = await startHttpReceiver();
    alice = await t.connectedSandbox({ name: 'alice', number: '5511900000741' });
    bob = await t.connectedSandbox({ name: 'bob', number: BOB, webhook: { allowWebhook: true, webhookFormat: 'meta', webhookMessage: `${receiver.url}/bob` } });
  });
  after(async () => {
    await receiver.close();
    await t.stop();
  });

  /** The `messages[]` item of bob's meta webhook for message `id`. */
  const delivered = (id: string) => t.waitFor(() => receiver.requests.filter((r) => r.url === '/bob')
    .flatMap((r) => (r.json as any).entry.flatMap((e: any) => e.changes.flatMap((c: any) => c.value.messages ?? [])))
    .find((m: any) => m.id === id), 10_000, `bob's meta webhook of ${id}`);

  /** Describes a media id through `GET /{version}/{media-id}` with bob's token, then downloads its `url` with the same token. */
  async function fetchMedia(id: string): Promise<{ described: any; bytes: Buffer }> {
    const described = await cloudRequest(t, bob.key, 'GET', `/${CLOUD_VERSION}/${encodeURIComponent(id)}`);
    assert.equal(described.status, 200, JSON.stringify(described.body));
    const download = await fetch(described.body.url, { headers: { authorization: `Bearer ${bob.key}` } });
    assert.equal(download.status, 200);
    return { described: described.body, bytes: Buffer.from(await download.arrayBuffer()) };
  }

  it('a received image and document: image.id and document.id download the same bytes through GET /{version}/{id} and its url', async () => {
    const data = (mime: string, bytes: Buffer) => `data:${mime};base64,${bytes.toString('base64')}`;
    const image = await t.request('POST', `/${alice.key}/message/base64/image`, { to: BOB, base64: data('image/png', SAMPLES.png), caption: 'a dot' });
    assert.equal(image.status, 200, JSON.stringify(image.body));
    const document = await t.request('POST', `/${alice.key}/message/base64/document`, {
      to: BOB, base64: data('application/pdf', SAMPLES.pdf), mimetype: 'application/pdf', fileName: 'terms.pdf',
    });
    assert.equal(document.status, 200, JSON.stringify(document.body));

    const asImage = await delivered(image.body.data.key.id);
    assert.equal(asImage.type, 'image');
    const gotImage = await fetchMedia(asImage.image.id);
    assert.deepEqual(gotImage.bytes, SAMPLES.png);
    assert.deepEqual([gotImage.described.id, gotImage.described.mime_type, gotImage.described.sha256, gotImage.described.file_size],
      [asImage.image.id, 'image/png', sha256Hex(SAMPLES.png), SAMPLES.png.length]);
    assert.equal(asImage.image.sha256, sha256Hex(SAMPLES.png));

    const asDocument = await delivered(document.body.data.key.id);
    const gotDocument = await fetchMedia(asDocument.document.id);
    assert.deepEqual(gotDocument.bytes, SAMPLES.pdf);
    assert.equal(gotDocument.described.mime_type, 'application/pdf');
  });
});
