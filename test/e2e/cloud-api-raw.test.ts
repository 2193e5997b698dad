import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CLOUD_VERSION, cloudRequest } from '../support/cloud-api.js';
import { MediaServer, SAMPLES } from '../support/media-server.js';
import { MessagingPair } from '../support/messaging.js';
import { startTestServer } from '../support/test-server.js';

/** Requests written as Meta's Cloud API documentation shows them, and bad input: the Cloud API's errors, nothing sent. */
describe('Cloud API: documented requests and bad input', () => {
  let p: MessagingPair;
  const BOB = '5511900000802';
  const post = (body: unknown, key = p.alice.key, id = p.alice.id) => cloudRequest(p.t, key, 'POST', `/${CLOUD_VERSION}/${id}/messages`, body);
  const sentCount = () => p.t.events.filter((e) => e.type === 'message' && e.instance === p.bob.id).length;

  before(async () => {
    p = await MessagingPair.start({}, ['5511900000801', BOB]);
    p.media.serve('/photo.jpg', { body: SAMPLES.jpeg, type: 'image/jpeg' });
  });
  after(async () => {
    await p.stop();
  });

  function expectCloudError(res: { status: number; body: any }, status: number, code: number, details?: string | RegExp, subcode?: number): void {
    assert.equal(res.status, status, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body), ['error']);
    const { error } = res.body;
    assert.equal(error.code, code, JSON.stringify(error));
    assert.match(error.message, new RegExp(`^\\(#${code}\\) `));
    assert.equal(typeof error.type, 'string');
    assert.match(error.fbtrace_id, /^[A-Za-z0-9_-]{16}$/);
    assert.equal(error.error_data.messaging_product, 'whatsapp');
    if (details !== undefined) assert.match(error.error_data.details, typeof details === 'string' ? new RegExp(details.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : details);
    assert.equal(error.error_subcode, subcode);
  }

  it('sends the documented examples: text with a link preview, an image by link, a reply, a reaction, a list, read with typing', async () => {
    const text = await post({ messaging_product: 'whatsapp', recipient_type: 'individual', to: BOB, type: 'text', text: { preview_url: false, body: 'As requested, here\'s the link to our latest product: https://example.com' } });
    assert.equal(text.status, 200, JSON.stringify(text.body));
    assert.deepEqual(text.body, { messaging_product: 'whatsapp', contacts: [{ input: BOB, wa_id: BOB }], messages: [{ id: text.body.messages[0].id, message_status: 'accepted' }] });
    const id = text.body.messages[0].id as string;
    const image = await post({ messaging_product: 'whatsapp', recipient_type: 'individual', to: BOB, type: 'image', image: { link: `${p.media.url}/photo.jpg`, caption: 'The best photo' } });
    assert.equal(image.status, 200, JSON.stringify(image.body));
    const reply = await post({ messaging_product: 'whatsapp', context: { message_id: id }, to: BOB, type: 'text', text: { body: 'a reply' } });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    const reaction = await post({ messaging_product: 'whatsapp', recipient_type: 'individual', to: BOB, type: 'reaction', reaction: { message_id: id, emoji: '\uD83D\uDE00' } });
    assert.equal(reaction.status, 200, JSON.stringify(reaction.body));
    const list = await post({
      messaging_product: 'whatsapp', recipient_type: 'individual', to: BOB, type: 'interactive',
      interactive: {
        type: 'list', header: { type: 'text', text: 'Shipping' }, body: { text: 'Which option?' }, footer: { text: 'Prices include tax' },
        action: { button: 'Options', sections: [{ title: 'Speed', rows: [{ id: 'fast', title: 'Express', description: 'Next day' }, { id: 'slow', title: 'Standard' }] }] },
      },
    });
    assert.equal(list.status, 200, JSON.stringify(list.body));
    const got = await p.received(list.body.messages[0].id);
    assert.deepEqual(got.message.content, { type: 'text', body: '*Shipping*\nWhich option?\n\n*Speed*\n• Express — Next day\n• Standard\n\nPrices include tax' });
    const quoted = await p.received(reply.body.messages[0].id);
    assert.equal(quoted.message.context?.id, id);

    const incoming = (await p.sendVia('sendText', { to: p.alice.number, text: 'to alice' }, p.bob)).key.id as string;
    await p.received(incoming, p.alice);
    const read = await cloudRequest(p.t, p.alice.key, 'POST', `/${CLOUD_VERSION}/${p.alice.id}/messages`, { messaging_product: 'whatsapp', status: 'read', message_id: incoming, typing_indicator: { type: 'text' } });
    assert.deepEqual([read.status, read.body], [200, { success: true }]);
    await p.t.waitFor(() => p.t.events.find((e) => e.type === 'message.status' && e.instance === p.bob.id && e.messageId === incoming && e.status === 'read'), 5000, 'bob\'s message read');
  });

  it('previews the link of a text sent with preview_url, and sends a text without a link as it is, as the Cloud API does', async () => {
    p.media.serve('/page.html', { body: Buffer.from('<html><head><meta property="og:title" content="The spring menu"></head></html>'), type: 'text/html' });
    const linked = await post({ messaging_product: 'whatsapp', to: BOB, type: 'text', text: { preview_url: true, body: `See ${p.media.url}/page.html` } });
    assert.equal(linked.status, 200, JSON.stringify(linked.body));
    const previewed = (await p.received(linked.body.messages[0].id)).message.content as { preview?: { title?: string } };
    assert.equal(previewed.preview?.title, 'The spring menu');
    const plain = await post({ messaging_product: 'whatsapp', to: BOB, type: 'text', text: { preview_url: true, body: 'No link in this one' } });
    assert.equal(plain.status, 200, JSON.stringify(plain.body));
    assert.deepEqual((await p.received(plain.body.messages[0].id)).message.content, { type: 'text', body: 'No link in this one' });
  });

  it('sends the documented edges: a reaction removed by an empty emoji, biz_opaque_callback_data, a group by its JID, two contacts at once', async () => {
    const first = await post({ messaging_product: 'whatsapp', to: BOB, type: 'text', text: { body: 'react to me' }, biz_opaque_callback_data: 'order-4711' });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const id = first.body.messages[0].id as string;
    await p.received(id);
    const reacted = await post({ messaging_product: 'whatsapp', to: BOB, type: 'reaction', reaction: { message_id: id, emoji: '👍' } });
    await p.received(reacted.body.messages[0].id);
    const removed = await post({ messaging_product: 'whatsapp', to: BOB, type: 'reaction', reaction: { message_id: id, emoji: '' } });
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    // A reaction without its emoji is the removal, as the channel delivers it.
    assert.deepEqual((await p.received(removed.body.messages[0].id)).message.content, { type: 'reaction', messageId: id });

    const group = (await p.t.client(p.alice.key).call('createGroup', { body: { name: 'Cloud group', participants: [BOB] } })).data;
    const toGroup = await post({ messaging_product: 'whatsapp', recipient_type: 'group', to: group.id, type: 'text', text: { body: 'hello group' } });
    assert.equal(toGroup.status, 200, JSON.stringify(toGroup.body));
    assert.deepEqual(toGroup.body.contacts, [{ input: group.id, wa_id: group.id.replace(/@g\.us$/, '') }]);
    const inGroup = await p.received(toGroup.body.messages[0].id);
    assert.deepEqual([inGroup.message.chatJid, inGroup.message.content], [group.id, { type: 'text', body: 'hello group' }]);

    const two = await post({
      messaging_product: 'whatsapp', to: BOB, type: 'contacts', contacts: [
        { name: { formatted_name: 'Ana Lima', first_name: 'Ana' }, phones: [{ phone: '+55 11 90000-0001', type: 'CELL', wa_id: '5511900000001' }], org: { company: 'Acme' } },
        { name: { formatted_name: 'Bruno' }, phones: [{ phone: '+5511900000003' }], emails: [{ email: 'b@example.com' }] },
      ],
    });
    assert.equal(two.status, 200, JSON.stringify(two.body));
    const cards = (await p.received(two.body.messages[0].id)).message.content as { type: string; contacts: { formattedName: string; vcard: string }[] };
    assert.deepEqual([cards.type, cards.contacts.map((c) => c.formattedName)], ['contacts', ['Ana Lima', 'Bruno']]);
    assert.match(cards.contacts[0]!.vcard, /waid=5511900000001:/);
    assert.match(cards.contacts[1]!.vcard, /5511900000003/);
  });

  it('honours Idempotency-Key like every send: a retry answers the first send\'s id and sends nothing more', async () => {
    const send = () => fetch(`${p.t.url}/${CLOUD_VERSION}/${p.alice.id}/messages`, {
      method: 'POST', headers: { authorization: `Bearer ${p.alice.key}`, 'content-type': 'application/json', 'idempotency-key': 'cloud-retry-1' },
      body: JSON.stringify({ messaging_product: 'whatsapp', to: BOB, type: 'text', text: { body: 'only once' } }),
    });
    const first = await send();
    const second = await send();
    assert.equal(second.headers.get('idempotent-replayed'), 'true');
    const [a, b] = [await first.json() as any, await second.json() as any];
    assert.equal(a.messages[0].id, b.messages[0].id);
    await p.received(a.messages[0].id);
    assert.equal(p.t.events.filter((e) => e.type === 'message' && e.instance === p.bob.id && (e as any).message.content.body === 'only once').length, 1);
  });

  it('holds Cloud API sends to the instance\'s queue and pacing policy: paused sends wait, a full queue answers 130429 with Retry-After', async () => {
    const api = p.t.client(p.alice.key);
    await api.call('pauseQueue');
    const policy = (await api.call('getQueuePolicy')).data;
    await api.call('setQueuePolicy', { body: { maxQueued: 1 } });
    try {
      const held = await post({ messaging_product: 'whatsapp', to: BOB, type: 'text', text: { body: 'held' } });
      assert.equal(held.status, 200, JSON.stringify(held.body));
      const queued = (await api.call('listQueue', { query: { limit: 10 } })).data;
      assert.deepEqual(queued.map((m: any) => [m.key.id, m.queue.state]), [[held.body.messages[0].id, 'paused']]);
      const res = await fetch(`${p.t.url}/${CLOUD_VERSION}/${p.alice.id}/messages`, {
        method: 'POST', headers: { authorization: `Bearer ${p.alice.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ messaging_product: 'whatsapp', to: BOB, type: 'text', text: { body: 'one too many' } }),
      });
      expectCloudError({ status: res.status, body: await res.json() }, 429, 130429, 'outbound queue is full');
      assert.match(res.headers.get('retry-after') ?? '', /^\d+$/);
    } finally {
      await api.call('setQueuePolicy', { body: { maxQueued: policy.maxQueued } });
      await api.call('resumeQueue');
    }
  });

  it('answers the phone number and describes received media by the message id', async () => {
    const phone = await cloudRequest(p.t, p.alice.key, 'GET', `/${CLOUD_VERSION}/${p.alice.id}`);
    assert.deepEqual(phone, { status: 200, body: { id: p.alice.id, display_phone_number: `+${p.alice.number}`, verified_name: 'alice' } });
    // Meta's documented request names the fields: the id always comes back, fields Parley does not have do not.
    const chosen = await cloudRequest(p.t, p.alice.key, 'GET', `/${CLOUD_VERSION}/${p.alice.id}?fields=verified_name,code_verification_status,quality_rating`);
    assert.deepEqual(chosen, { status: 200, body: { id: p.alice.id, verified_name: 'alice' } });
    const sent = await post({ messaging_product: 'whatsapp', to: BOB, type: 'image', image: { link: `${p.media.url}/photo.jpg` } });
    const id = sent.body.messages[0].id as string;
    await p.received(id);
    const described = await cloudRequest(p.t, p.bob.key, 'GET', `/${CLOUD_VERSION}/${id}`);
    assert.equal(described.status, 200, JSON.stringify(described.body));
    assert.equal(described.body.mime_type, 'image/jpeg');
    assert.equal(described.body.file_size, SAMPLES.jpeg.length);
    const sized = await cloudRequest(p.t, p.bob.key, 'GET', `/${CLOUD_VERSION}/${id}?fields=file_size`);
    assert.deepEqual(sized, { status: 200, body: { id, file_size: SAMPLES.jpeg.length } });
    const bytes = await fetch(described.body.url, { headers: { authorization: `Bearer ${p.bob.key}` } });
    assert.deepEqual(Buffer.from(await bytes.arrayBuffer()), SAMPLES.jpeg);
    // Another instance's token does not open bob's download.
    const foreign = await fetch(described.body.url, { headers: { authorization: `Bearer ${p.alice.key}` } });
    expectCloudError({ status: foreign.status, body: await foreign.json() }, 400, 100, `Object with ID '${p.bob.id}'`, 33);
  });

  it('reads the business profile Parley has, about included, and writes about, refusing the members a linked device cannot change', async () => {
    const profilePath = `/${CLOUD_VERSION}/${p.alice.id}/whatsapp_business_profile`;
    const read = await cloudRequest(p.t, p.alice.key, 'GET', `${profilePath}?fields=about,description,vertical`);
    assert.deepEqual(read, { status: 200, body: { data: [{ messaging_product: 'whatsapp' }] } });
    const about = await cloudRequest(p.t, p.alice.key, 'POST', profilePath, { messaging_product: 'whatsapp', about: 'Open 9am to 6pm' });
    assert.deepEqual(about, { status: 200, body: { success: true } });
    // Read back as the Cloud API answers it, with and without ?fields=.
    assert.deepEqual(await cloudRequest(p.t, p.alice.key, 'GET', `${profilePath}?fields=about,description`), { status: 200, body: { data: [{ about: 'Open 9am to 6pm', messaging_product: 'whatsapp' }] } });
    const whole = (await cloudRequest(p.t, p.alice.key, 'GET', profilePath)).body.data[0];
    assert.deepEqual([whole.about, Object.keys(whole).sort()], ['Open 9am to 6pm', ['about', 'messaging_product', 'profile_picture_url']]);
    assert.deepEqual((await cloudRequest(p.t, p.alice.key, 'GET', `${profilePath}?fields=vertical`)).body, { data: [{ messaging_product: 'whatsapp' }] });
    const seen = await p.t.client(p.bob.key).call('getContactStatus', { params: { number: p.alice.number } });
    assert.equal(JSON.stringify(seen).includes('Open 9am to 6pm'), true, JSON.stringify(seen));
    expectCloudError(await cloudRequest(p.t, p.alice.key, 'POST', profilePath, { messaging_product: 'whatsapp', about: 'x', email: 'a@b.c', websites: ['https://x'] }), 400, 100, 'email, websites cannot be changed through Parley');
    const after = await p.t.client(p.bob.key).call('getContactStatus', { params: { number: p.alice.number } });
    assert.deepEqual(after, seen, 'a refused update changes nothing, about included');
    assert.equal((await cloudRequest(p.t, p.alice.key, 'GET', `${profilePath}?fields=about`)).body.data[0].about, 'Open 9am to 6pm');
  });

  it('refuses missing and wrong tokens, another instance\'s phone number id, messages and uploads, in the Cloud API\'s envelope', async () => {
    const body = { messaging_product: 'whatsapp', to: BOB, type: 'text', text: { body: 'x' } };
    // Dave's message to bob and dave's upload are not alice's to quote, react to, mark read, send or describe.
    const dave = await p.t.connectedSandbox({ name: 'dave', number: '5511900000804' });
    const theirs = (await p.sendVia('sendText', { to: BOB, text: 'from dave' }, { id: dave.id, key: dave.key, number: '5511900000804', jid: '5511900000804@s.whatsapp.net' })).key.id as string;
    await p.received(theirs);
    const form = new FormData();
    form.append('messaging_product', 'whatsapp');
    form.append('file', new Blob([new Uint8Array(SAMPLES.png)], { type: 'image/png' }), 'dave.png');
    const upload = (await (await fetch(`${p.t.url}/${CLOUD_VERSION}/${dave.id}/media`, { method: 'POST', headers: { authorization: `Bearer ${dave.key}` }, body: form })).json() as { id: string }).id;
    const before = sentCount();
    expectCloudError(await post({ ...body, context: { message_id: theirs } }), 404, 131009, `message ${theirs} not found`);
    expectCloudError(await post({ messaging_product: 'whatsapp', to: BOB, type: 'reaction', reaction: { message_id: theirs, emoji: '👍' } }), 404, 131009);
    expectCloudError(await post({ messaging_product: 'whatsapp', status: 'read', message_id: theirs }), 404, 131009);
    expectCloudError(await post({ messaging_product: 'whatsapp', to: BOB, type: 'image', image: { id: upload } }), 404, 100, `media ${upload} not found`, 33);
    expectCloudError(await cloudRequest(p.t, p.alice.key, 'GET', `/${CLOUD_VERSION}/${upload}`), 404, 100, undefined, 33);
    expectCloudError(await cloudRequest(p.t, p.alice.key, 'DELETE', `/${CLOUD_VERSION}/${upload}`), 404, 100, undefined, 33);
    assert.equal((await cloudRequest(p.t, dave.key, 'GET', `/${CLOUD_VERSION}/${upload}`)).body.file_size, SAMPLES.png.length, 'dave\'s upload is still there');
    expectCloudError(await cloudRequest(p.t, undefined, 'POST', `/${CLOUD_VERSION}/${p.alice.id}/messages`, body), 401, 190, 'Authorization: Bearer');
    expectCloudError(await post(body, 'not-a-key'), 401, 190);
    expectCloudError(await post(body, p.alice.key, p.bob.id), 400, 100, `Object with ID '${p.bob.id}'`, 33);
    // A path that is no Cloud API version stays an unknown route of the REST API.
    const unknown = await p.t.request('GET', `/${p.alice.key}/nothing`);
    assert.deepEqual(unknown.body, { status: 404, error: { code: 'route_not_found', message: 'no route GET /:key/nothing' } });
    await p.t.settle();
    assert.equal(sentCount(), before);
  });

  it('answers bad bodies with code 100 naming the field, sends nothing and stores nothing', async () => {
    const before = sentCount();
    const stored = (await p.t.client(p.alice.key).call('listChatMessages', { params: { jid: BOB } })).total;
    const cases: [unknown, number, number, string][] = [
      [{ to: BOB, type: 'text', text: { body: 'x' } }, 400, 100, 'body.messaging_product is required'],
      [{ messaging_product: 'sms', to: BOB, type: 'text', text: { body: 'x' } }, 400, 100, 'body.messaging_product must be one of'],
      [{ messaging_product: 'whatsapp', to: BOB, type: 'text' }, 400, 100, 'text is required when type is text'],
      [{ messaging_product: 'whatsapp', to: BOB, type: 'text', text: { body: '' } }, 400, 100, 'body.text.body must NOT have fewer than 1 characters'],
      [{ messaging_product: 'whatsapp', to: BOB, type: 'carousel' }, 400, 100, 'body.type must be one of'],
      [{ messaging_product: 'whatsapp', to: 'not a number', type: 'text', text: { body: 'x' } }, 400, 100, 'body.to'],
      [{ messaging_product: 'whatsapp', to: BOB, type: 'image', image: { caption: 'no media' } }, 400, 100, 'image needs exactly one of id and link'],
      [{ messaging_product: 'whatsapp', to: BOB, type: 'image', image: { id: 'pm.000000000000000000000000' } }, 404, 100, 'media pm.000000000000000000000000 not found'],
      [{ messaging_product: 'whatsapp', to: BOB, type: 'image', image: { link: `${p.media.url}/missing.jpg` } }, 400, 131053, 'body.url could not be fetched: HTTP 404'],
      [{ messaging_product: 'whatsapp', to: BOB, type: 'document', document: { link: 'http://127.0.0.1:9/closed.pdf', filename: 'closed.pdf' } }, 400, 131053, 'body.url could not be fetched'],
      [{ messaging_product: 'whatsapp', to: BOB, type: 'contacts', contacts: '[{"name":{}}]' }, 400, 100, 'body.contacts[0].name.formatted_name is required'],
      [{ messaging_product: 'whatsapp', to: BOB, type: 'reaction', reaction: { message_id: 'nope', emoji: '👍' } }, 404, 131009, 'message nope not found'],
      [{ messaging_product: 'whatsapp', to: BOB, type: 'text', text: { body: 'x' }, context: { message_id: 'nope' } }, 404, 131009, 'message nope not found'],
      [{ messaging_product: 'whatsapp', status: 'read' }, 400, 100, 'message_id is required with status read'],
      [{ messaging_product: 'whatsapp', status: 'read', message_id: 'nope' }, 404, 131009, 'message nope not found'],
      ['{"messaging_product": "whatsapp",', 400, 100, 'JSON'],
    ];
    const wrong: string[] = [];
    for (const [body, status, code, details] of cases) {
      const res = await post(body);
      try {
        expectCloudError(res, status, code, details, status === 404 && code === 100 ? 33 : undefined);
      } catch {
        wrong.push(`${JSON.stringify(body)} → ${res.status} ${JSON.stringify(res.body.error)}`);
      }
    }
    assert.deepEqual(wrong, []);
    await p.t.settle();
    assert.equal(sentCount(), before);
    assert.equal((await p.t.client(p.alice.key).call('listChatMessages', { params: { jid: BOB } })).total, stored);
  });

  it('refuses bad uploads and unknown media ids', async () => {
    const upload = (form: FormData) => fetch(`${p.t.url}/${CLOUD_VERSION}/${p.alice.id}/media`, { method: 'POST', headers: { authorization: `Bearer ${p.alice.key}` }, body: form });
    const noFile = new FormData();
    noFile.append('messaging_product', 'whatsapp');
    const res = await upload(noFile);
    expectCloudError({ status: res.status, body: await res.json() }, 400, 100, 'file is required');
    const json = await cloudRequest(p.t, p.alice.key, 'POST', `/${CLOUD_VERSION}/${p.alice.id}/media`, { file: 'x' });
    expectCloudError(json, 400, 100, 'multipart/form-data');
    expectCloudError(await cloudRequest(p.t, p.alice.key, 'GET', `/${CLOUD_VERSION}/pm.0123456789abcdef01234567`), 404, 100, 'not found', 33);
    expectCloudError(await cloudRequest(p.t, p.alice.key, 'DELETE', `/${CLOUD_VERSION}/pm.0123456789abcdef01234567`), 404, 100, 'not found', 33);
  });

  it('deletes an instance\'s uploads with the instance: the id no longer resolves, no description or bytes are left', async () => {
    const carol = await p.t.connectedSandbox({ name: 'carol', number: '5511900000803' });
    const form = new FormData();
    form.append('messaging_product', 'whatsapp');
    form.append('file', new Blob([new Uint8Array(SAMPLES.png)], { type: 'image/png' }), 'dot.png');
    const uploaded = await fetch(`${p.t.url}/${CLOUD_VERSION}/${carol.id}/media`, { method: 'POST', headers: { authorization: `Bearer ${carol.key}` }, body: form });
    const { id } = await uploaded.json() as { id: string };
    assert.equal((await cloudRequest(p.t, carol.key, 'GET', `/${CLOUD_VERSION}/${id}`)).body.file_size, SAMPLES.png.length);
    const { state, media } = p.t.server.context.storage;
    // Where uploads' descriptions are kept, and where they were kept before they moved under the instance's prefix.
    const descriptions = async () => [...await state.list(`${carol.id}:cloud-api:media`), ...await state.list(`cloud-api:media:${carol.id}`)].map((d) => d.id);
    assert.deepEqual(await descriptions(), [id]);
    assert.equal((await p.t.client().call('adminDeleteInstance', { params: { key: carol.key } })).status, 200);
    expectCloudError(await cloudRequest(p.t, carol.key, 'GET', `/${CLOUD_VERSION}/${id}`), 401, 190);
    assert.deepEqual(await descriptions(), []);
    assert.equal(await media.get(carol.id, id), null);
  });
});

describe('Cloud API on a server that refuses private network URLs, with a small media body limit', () => {
  it('refuses a media link and a previewed link on a private address through the same guard, without fetching them, and an upload over the limit', async () => {
    const t = await startTestServer({ config: { allowPrivateUrls: false, mediaBodyLimitBytes: 4096 } });
    const media = await MediaServer.start({ '/photo.jpg': { body: SAMPLES.jpeg, type: 'image/jpeg' } });
    try {
      const alice = await t.connectedSandbox({ name: 'alice', number: '5511900000811' });
      const res = await cloudRequest(t, alice.key, 'POST', `/${CLOUD_VERSION}/${alice.id}/messages`, { messaging_product: 'whatsapp', to: '5511900000812', type: 'image', image: { link: `${media.url}/photo.jpg` } });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 100);
      assert.match(res.body.error.error_data.details, /private network address .*PARLEY_ALLOW_PRIVATE_URLS/);
      // preview_url fetches the text's link through the same guard.
      const preview = await cloudRequest(t, alice.key, 'POST', `/${CLOUD_VERSION}/${alice.id}/messages`, { messaging_product: 'whatsapp', to: '5511900000812', type: 'text', text: { preview_url: true, body: `See ${media.url}/photo.jpg` } });
      assert.deepEqual([preview.status, preview.body.error?.code], [400, 100], JSON.stringify(preview.body));
      assert.match(preview.body.error.error_data.details, /^body\.text link points to a private network address/);
      assert.equal(media.totalHits(), 0);
      assert.equal((await t.client(alice.key).call('listChats')).data.length, 0, 'nothing sent');
      const form = new FormData();
      form.append('messaging_product', 'whatsapp');
      form.append('file', new Blob([new Uint8Array(SAMPLES.mp4)], { type: 'video/mp4' }), 'clip.mp4');
      const upload = await fetch(`${t.url}/${CLOUD_VERSION}/${alice.id}/media`, { method: 'POST', headers: { authorization: `Bearer ${alice.key}` }, body: form });
      const refused = await upload.json() as any;
      assert.deepEqual([upload.status, refused.error.code, refused.error.error_data.details], [413, 131053, 'the upload is larger than 4096 bytes']);
    } finally {
      await media.stop();
      await t.stop();
    }
  });
});
