import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHttpReceiver, type HttpReceiver } from '@parley/testkit';
import * as M from 'whatsapp-api-js/messages';
import type { WhatsAppAPI } from 'whatsapp-api-js';
import { cloudClient } from '../support/cloud-api.js';
import { MediaServer, SAMPLE_FILES, SAMPLES, sha256Hex } from '../support/media-server.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

describe('Cloud API through the unmodified whatsapp-api-js client', () => {
  let t: TestServer;
  let media: MediaServer;
  let receiver: HttpReceiver;
  let alice: { id: string; key: string; webhookSecret: string };
  let bob: { id: string; key: string; webhookSecret: string };
  let wa: WhatsAppAPI;
  const BOB = '5511900000702';
  /** Ids of the messages alice sent (the first test), in order. */
  const sent: string[] = [];

  before(async () => {
    t = await startTestServer();
    media = await MediaServer.start({
      ...SAMPLE_FILES, '/cat.jpg': { body: SAMPLES.jpeg, type: 'image/jpeg' }, '/report.pdf': { body: SAMPLES.pdf, type: 'application/pdf' },
      '/menu.html': { body: Buffer.from('<html><head><meta property="og:title" content="The spring menu"></head></html>'), type: 'text/html' },
    });
    receiver = await startHttpReceiver();
    const webhook = (path: string) => ({ allowWebhook: true, webhookFormat: 'cloud-api', webhookMessage: `${receiver.url}/${path}` });
    alice = await t.connectedSandbox({ name: 'alice', number: '5511900000701', webhook: webhook('alice') });
    bob = await t.connectedSandbox({ name: 'bob', number: BOB, webhook: webhook('bob') });
    wa = cloudClient(t, alice.key);
  });
  after(async () => {
    await receiver.close();
    await media.stop();
    await t.stop();
  });

  /** Sends through the client and answers the message id Parley gave it (the send result's shape checked). */
  async function send(message: Parameters<WhatsAppAPI['sendMessage']>[2], context?: string): Promise<string> {
    const res = await wa.sendMessage(alice.id, BOB, message, context) as any;
    assert.equal(res.messaging_product, 'whatsapp', JSON.stringify(res));
    assert.deepEqual(res.contacts, [{ input: BOB, wa_id: BOB }]);
    assert.equal(res.messages.length, 1);
    assert.equal(res.messages[0].message_status, 'accepted');
    return res.messages[0].id as string;
  }

  it('sends every message type the client builds that the channel has (media by link and by id), and bob receives each as built', async () => {
    const upload = async (data: Buffer, type: string, name: string): Promise<string> => {
      const form = new FormData();
      form.append('messaging_product', 'whatsapp');
      form.append('file', new Blob([new Uint8Array(data)], { type }), name);
      const answer = await wa.uploadMedia(alice.id, form) as any;
      assert.match(answer.id, /^pm\.[0-9a-f]{24}$/, JSON.stringify(answer));
      return answer.id;
    };
    const png = await upload(SAMPLES.png, 'image/png', 'dot.png');
    const ogg = await upload(SAMPLES.ogg, 'audio/ogg', 'note.ogg');
    const webp = await upload(SAMPLES.webp, 'image/webp', 'sticker.webp');
    const mp4 = await upload(SAMPLES.mp4, 'video/mp4', 'clip.mp4');
    const pdf = await upload(SAMPLES.pdf, 'application/pdf', 'upload.pdf');
    const ids: Record<string, string> = {};
    ids.text = await send(new M.Text('hello from the cloud api', false));
    ids.preview = await send(new M.Text(`Our menu: ${media.url}/menu.html`, true));
    ids.imageLink = await send(new M.Image(`${media.url}/cat.jpg`, false, 'a cat'));
    ids.imageId = await send(new M.Image(png, true, 'uploaded'));
    ids.audio = await send(new M.Audio(ogg, true, true));
    ids.audioLink = await send(new M.Audio(`${media.url}/a.mp3`));
    ids.video = await send(new M.Video(mp4, true, 'a clip'));
    ids.videoLink = await send(new M.Video(`${media.url}/a.mp4`, false, 'a linked clip'));
    ids.sticker = await send(new M.Sticker(webp, true));
    ids.stickerLink = await send(new M.Sticker(`${media.url}/a.webp`));
    ids.document = await send(new M.Document(`${media.url}/report.pdf`, false, undefined, 'report.pdf'));
    ids.documentId = await send(new M.Document(pdf, true, 'the quarter', 'q3.pdf'));
    ids.location = await send(new M.Location(-46.63, -23.55, 'Praça da Sé', 'São Paulo'));
    ids.contacts = await send(new M.Contacts([new M.Name('Ana Lima', 'Ana'), new M.Phone('+55 11 90000-0001', 'CELL', '5511900000001'), new M.Organization('Acme')]));
    ids.buttons = await send(new M.Interactive(new M.ActionButtons(new M.Button('yes', 'Yes'), new M.Button('no', 'No')), new M.Body('Agree?'), new M.Header('Terms'), new M.Footer('Reply below')));
    ids.cta = await send(new M.Interactive(new M.ActionCTA('Open site', 'https://example.com/'), new M.Body('Our site')));
    ids.list = await send(new M.Interactive(new M.ActionList('Menu', new M.ListSection('Food', new M.Row('r1', 'Pizza', 'cheese'), new M.Row('r2', 'Soup'))), new M.Body('Pick one')));
    ids.reply = await send(new M.Text('a reply'), ids.text);
    ids.reaction = await send(new M.Reaction(ids.text, '👍'));

    const received = await t.waitFor(() => {
      const got = t.events.filter((e) => e.type === 'message' && e.instance === bob.id).map((e) => (e as any).message);
      return got.length >= Object.keys(ids).length ? got : undefined;
    }, 10_000, `bob to receive the ${Object.keys(ids).length} messages`);
    const byId = new Map(received.map((m: any) => [m.id, m]));
    assert.deepEqual(byId.get(ids.text).content, { type: 'text', body: 'hello from the cloud api' });
    assert.equal(byId.get(ids.imageLink).content.type, 'image');
    assert.equal(byId.get(ids.imageLink).content.media.caption, 'a cat');
    assert.equal(byId.get(ids.imageId).content.media.mimeType, 'image/png');
    assert.equal(byId.get(ids.preview).content.preview?.title, 'The spring menu', 'preview_url previews the link');
    const mediaOf = (id: string) => { const c = byId.get(id).content; return [c.type, c.media.mimeType, c.media.sha256, c.media.caption ?? null]; };
    assert.deepEqual([...mediaOf(ids.audio), byId.get(ids.audio).content.voice], ['audio', 'audio/ogg', sha256Hex(SAMPLES.ogg), null, true]);
    assert.deepEqual(mediaOf(ids.audioLink), ['audio', 'audio/mpeg', sha256Hex(SAMPLES.mp3), null]);
    assert.deepEqual(mediaOf(ids.video), ['video', 'video/mp4', sha256Hex(SAMPLES.mp4), 'a clip']);
    assert.deepEqual(mediaOf(ids.videoLink), ['video', 'video/mp4', sha256Hex(SAMPLES.mp4), 'a linked clip']);
    assert.deepEqual(mediaOf(ids.sticker), ['sticker', 'image/webp', sha256Hex(SAMPLES.webp), null]);
    assert.deepEqual(mediaOf(ids.stickerLink), ['sticker', 'image/webp', sha256Hex(SAMPLES.webp), null]);
    assert.deepEqual([...mediaOf(ids.document), byId.get(ids.document).content.filename], ['document', 'application/pdf', sha256Hex(SAMPLES.pdf), null, 'report.pdf']);
    assert.deepEqual([...mediaOf(ids.documentId), byId.get(ids.documentId).content.filename], ['document', 'application/pdf', sha256Hex(SAMPLES.pdf), 'the quarter', 'q3.pdf']);
    assert.deepEqual(byId.get(ids.location).content, { type: 'location', latitude: -23.55, longitude: -46.63, address: 'Praça da Sé\nSão Paulo' });
    const [card] = byId.get(ids.contacts).content.contacts;
    assert.equal(card.formattedName, 'Ana Lima');
    assert.match(card.vcard, /\nORG:Acme;\n/);
    assert.match(card.vcard, /waid=5511900000001:/);
    assert.equal(byId.get(ids.reply).context?.id, ids.text);
    // The sandbox's receiving side shows buttons as unsupported, as it does for the REST sends of those types: alice's record shows what went.
    const sentRecord = async (id: string) => (await t.client(alice.key).call('getMessage', { params: { messageId: id } })).data.message as any;
    const buttons = (await sentRecord(ids.buttons)).interactiveMessage;
    assert.deepEqual([buttons.header.title, buttons.body.text, buttons.footer.text], ['Terms', 'Agree?', 'Reply below']);
    assert.deepEqual(buttons.nativeFlowMessage.buttons.map((b: any) => [b.name, JSON.parse(b.buttonParamsJson)]), [['quick_reply', { display_text: 'Yes', id: 'yes' }], ['quick_reply', { display_text: 'No', id: 'no' }]]);
    const cta = (await sentRecord(ids.cta)).interactiveMessage;
    assert.equal(cta.body.text, 'Our site');
    assert.deepEqual(cta.nativeFlowMessage.buttons.map((b: any) => [b.name, JSON.parse(b.buttonParamsJson).display_text, JSON.parse(b.buttonParamsJson).url]), [['cta_url', 'Open site', 'https://example.com/']]);
    assert.equal(byId.get(ids.list).content.body, 'Pick one\n\n*Food*\n• Pizza — cheese\n• Soup');
    assert.deepEqual(byId.get(ids.reaction).content, { type: 'reaction', emoji: '👍', messageId: ids.text });
    sent.push(...Object.values(ids));
  });

  it('refuses, with the Cloud API\'s invalid parameter and nothing sent, what the client builds that the channel cannot carry', async () => {
    const before = t.events.filter((e) => e.type === 'message' && e.instance === bob.id).length;
    const refused: [string, Parameters<WhatsAppAPI['sendMessage']>[2]][] = [
      ['location request', new M.Interactive(new M.ActionLocation(), new M.Body('Where are you?'))],
      ['call permission', new M.Interactive(new M.ActionCallPermission(), new M.Body('May we call?'))],
      ['contact request', new M.Interactive(new M.ActionContactRequest(), new M.Body('Your number?'))],
      ['catalog', new M.Interactive(new M.ActionCatalog(new M.Product('sku-1')), new M.Body('Our catalog'))],
      ['product', new M.Interactive(new M.ActionProduct(new M.CatalogProduct('sku-1', 'catalog-1')))],
      ['product list', new M.Interactive(new M.ActionProductList('catalog-1', new M.ProductSection('Mugs', new M.Product('sku-1'))), new M.Body('Pick'), new M.Header('Shop'))],
      ['flow', new M.Interactive(new M.ActionNavigateFlow('token-1', 'flow-1', 'Open', 'WELCOME'), new M.Body('Sign up'))],
      ['image header', new M.Interactive(new M.ActionButtons(new M.Button('y', 'Yes')), new M.Body('Look'), new M.Header(new M.Image(`${media.url}/cat.jpg`)))],
      ['media template header', new M.Template('any', 'en', new M.HeaderComponent(new M.HeaderParameter(new M.Image(`${media.url}/cat.jpg`))))],
    ];
    for (const [what, message] of refused) {
      const res = await wa.sendMessage(alice.id, BOB, message) as any;
      assert.equal(res.error?.code, 100, `${what}: ${JSON.stringify(res)}`);
      assert.match(res.error.error_data.details, /^body\.(interactive|template)/, what);
    }
    await t.settle();
    assert.equal(t.events.filter((e) => e.type === 'message' && e.instance === bob.id).length, before);
  });

  it('bob marks a message read with a typing indicator, and alice\'s message gets its read status', async () => {
    const bobWa = cloudClient(t, bob.key);
    assert.deepEqual(await bobWa.markAsRead(bob.id, sent[0]!, 'text'), { success: true });
    await t.waitFor(() => t.events.find((e) => e.type === 'message.status' && e.instance === alice.id && e.messageId === sent[0] && e.status === 'read'), 5000, 'the read status');
    await t.waitFor(() => t.events.find((e) => e.type === 'presence' && e.instance === alice.id && (e as any).status === 'composing'), 5000, 'the typing indicator');
  });

  it('its webhook parser accepts every cloud-api delivery with its signature verified: bob gets each message, alice only statuses', async () => {
    // Bob's read marks the whole chat read: wait for the status of the message he named, not any read status.
    const statusesAt = (path: string) => receiver.requests.filter((r) => r.url === path).flatMap((r) => (r.json as any).entry.flatMap((e: any) => e.changes.flatMap((c: any) => c.value.statuses ?? [])));
    await t.waitFor(() => statusesAt('/alice').some((s: any) => s.id === sent[0] && s.status === 'read'), 10_000, 'alice\'s read status delivery');
    const parse = async (who: { key: string; webhookSecret: string }, path: string) => {
      const client = cloudClient(t, who.key, { appSecret: who.webhookSecret });
      const got = { messages: [] as any[], statuses: [] as any[] };
      client.on = { message: (args) => void got.messages.push(args.message), status: (args) => void got.statuses.push(args) } as WhatsAppAPI['on'];
      for (const request of receiver.requests.filter((r) => r.url === path)) {
        assert.equal(await client.post(JSON.parse(request.body), request.body, String(request.headers['x-hub-signature-256'])), undefined);
        assert.equal((request.json as any).object, 'whatsapp_business_account');
        // Exactly what the Cloud API sends: messages and statuses, none of Parley's other events (alice saw bob typing) or members.
        for (const change of (request.json as any).entry.flatMap((e: any) => e.changes)) {
          assert.equal(change.field, 'messages', request.body);
          assert.deepEqual(Object.keys(change.value).filter((k) => !['messaging_product', 'metadata', 'contacts', 'messages', 'statuses'].includes(k)), [], request.body);
        }
      }
      return got;
    };
    const atBob = await parse(bob, '/bob');
    assert.deepEqual(new Set(atBob.messages.map((m) => m.id)), new Set(sent));
    assert.ok(atBob.messages.every((m) => m.from === '5511900000701' && !('from_me' in m)));
    assert.deepEqual(atBob.statuses, [], 'bob sent nothing');
    // A received media's id in the webhook is what GET /{version}/{media-id} resolves, with bob's token.
    const bobWa = cloudClient(t, bob.key);
    const image = atBob.messages.find((m) => m.type === 'image' && m.image.mime_type === 'image/png');
    assert.equal(image.image.id, image.id);
    const described = await bobWa.retrieveMedia(image.image.id) as any;
    assert.deepEqual([described.mime_type, described.sha256, described.file_size], ['image/png', sha256Hex(SAMPLES.png), SAMPLES.png.length]);
    assert.deepEqual(Buffer.from(await (await bobWa.fetchMedia(described.url)).arrayBuffer()), SAMPLES.png);
    const atAlice = await parse(alice, '/alice');
    assert.deepEqual(atAlice.messages, [], 'own messages are not delivered');
    assert.ok(atAlice.statuses.some((s) => s.id === sent[0] && s.status === 'read' && s.phone === BOB));
    // A body changed after signing is refused by the same parser.
    const request = receiver.requests.find((r) => r.url === '/bob')!;
    await assert.rejects(cloudClient(t, bob.key, { appSecret: bob.webhookSecret }).post(JSON.parse(request.body), request.body.replace('5511900000701', '5511900000709'), String(request.headers['x-hub-signature-256'])));
  });

  it('uploads, describes, downloads and deletes media with the same token', async () => {
    const form = new FormData();
    form.append('messaging_product', 'whatsapp');
    form.append('file', new Blob([new Uint8Array(SAMPLES.pdf)], { type: 'application/pdf' }), 'report.pdf');
    const { id } = await wa.uploadMedia(alice.id, form) as any;
    const described = await wa.retrieveMedia(id, alice.id) as any;
    assert.deepEqual({ ...described, url: undefined }, { messaging_product: 'whatsapp', url: undefined, mime_type: 'application/pdf', sha256: sha256Hex(SAMPLES.pdf), file_size: SAMPLES.pdf.length, id });
    const download = await wa.fetchMedia(described.url);
    assert.equal(download.status, 200);
    assert.equal(download.headers.get('content-type'), 'application/pdf');
    assert.deepEqual(Buffer.from(await download.arrayBuffer()), SAMPLES.pdf);
    assert.deepEqual(await wa.deleteMedia(id, alice.id), { success: true });
    const gone = await wa.retrieveMedia(id) as any;
    assert.equal(gone.error.code, 100);
    assert.equal(gone.error.error_subcode, 33);
    // The bytes are gone from the instance's media store, not overwritten; a second delete finds nothing.
    assert.equal(await t.server.context.storage.media.get(alice.id, id), null);
    assert.equal(await t.server.context.storage.media.delete(alice.id, id), false);
    const again = await wa.deleteMedia(id, alice.id) as any;
    assert.deepEqual([again.error.code, again.error.error_subcode], [100, 33]);
  });

  it('performs Meta\'s subscription handshake against bob\'s receiver when asked, verified by the client\'s own check', async () => {
    const verifier = cloudClient(t, bob.key, { webhookVerifyToken: 'bob-verify' });
    receiver.respond((request) => {
      if (request.method !== 'GET') return {};
      try {
        return { body: String(verifier.get(Object.fromEntries(new URL(request.url, 'http://x').searchParams) as Parameters<WhatsAppAPI['get']>[0])) };
      } catch {
        return { status: 403 };
      }
    });
    const verify = (body: unknown) => t.request('POST', `/${bob.key}/instance/webhook/verify`, body);
    assert.deepEqual((await verify({ verifyToken: 'bob-verify' })).body, { status: 200, data: { verified: true, url: `${receiver.url}/bob` } });
    assert.deepEqual((await verify({ verifyToken: 'wrong' })).body, { status: 200, data: { verified: false, url: `${receiver.url}/bob`, reason: 'HTTP 403', receiverStatus: 403 } });
    const handshakes = receiver.requests.filter((r) => r.method === 'GET');
    assert.equal(handshakes.length, 2);
    assert.match(handshakes[0]!.url, /^\/bob\?hub\.mode=subscribe&hub\.verify_token=bob-verify&hub\.challenge=[0-9a-f]{24}$/);
    const other = await verify({ verifyToken: 'bob-verify', url: 'http://127.0.0.1:9/elsewhere' });
    assert.equal(other.status, 400);
    assert.equal(other.body.error.message, 'body.url must be one of the instance\'s webhook URLs');
    assert.equal(receiver.requests.filter((r) => r.method === 'GET').length, 2, 'no request to a URL the instance does not deliver to');
    receiver.respond({});
  });
  it('a client sending in a loop is paced by the instance\'s policy: the sends wait in its queue, none goes around it', async () => {
    const before = (await t.client(alice.key).call('getQueuePolicy')).data;
    assert.equal((await t.request('PUT', `/${alice.key}/queue/policy`, { perMinute: null, perHour: null, minGapMs: 600_000, jitterMs: 0, recipientGapMs: 0, quietHours: null, typing: { enabled: false } })).status, 200);
    try {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push(await send(new M.Text(`loop ${i}`)));
      const queued = (await t.client(alice.key).call('listQueue', { query: { limit: 10 } })).data;
      const waiting = queued.filter((m) => ids.includes(m.key.id));
      assert.ok(waiting.length >= 2 && waiting.every((m) => ['queued', 'scheduled'].includes(m.queue?.state ?? '')), JSON.stringify(queued.map((m) => m.queue)));
      await t.settle();
      const arrived = t.events.filter((e) => e.type === 'message' && e.instance === bob.id && ids.includes((e as any).message.id));
      assert.ok(arrived.length <= 1, `${arrived.length} of the loop's sends arrived at once`);
      for (const m of waiting) assert.equal((await t.client(alice.key).call('cancelQueuedSend', { params: { messageId: m.key.id } })).status, 200);
    } finally {
      assert.equal((await t.request('PUT', `/${alice.key}/queue/policy`, before)).status, 200);
    }
  });
});
