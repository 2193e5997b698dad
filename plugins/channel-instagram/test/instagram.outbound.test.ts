import { beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import {
  CapabilityNotSupportedError, ConflictError, UpstreamError, ValidationError,
  type MediaInput, type MessageRecord, type MessagingCapability, type OutgoingType, type SocialLink,
} from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { createDriverHarness, testInstance, useMockGraph } from '@parley/meta-graph/testing';
import { createInstagramDriver } from '../src/index.js';

const ACCOUNT = '17841405822304914';
const USER = '6543210987654321';
const TOKEN = 'EAAGtestaccesstoken0000000000';
const APP_SECRET = 'test-app-secret-0123456789abcdef';
const PROOF = createHmac('sha256', APP_SECRET).update(TOKEN).digest('hex');
const NOW = 1_718_000_100_000;
const SENT_MID = 'aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOjE3ODQxNDA1ODIyMzA0OTE0OjM0MDI4MjM2Njg0MTcxMDMwMTI0NDI1ODE4NzUxOTk3OTcyODI5MjozMTg0NzQ2NjUwMzA0OTM0NTkzNjU4NDQwNjE4ODg4NTkwMAZDZD';
const EXPIRED = {
  error: {
    message: 'Error validating access token: Session has expired on Tuesday, 11-Jun-24 10:00:00 PDT.',
    type: 'OAuthException', code: 190, error_subcode: 463, fbtrace_id: 'AqX3fbtrace01',
  },
};

const link: SocialLink = {
  channel: 'instagram', accountId: ACCOUNT, accessToken: TOKEN, appSecret: APP_SECRET,
  verifyToken: 'verify-token-instagram-1234', linkedAt: 1_700_000_000_000,
};

function media(overrides: Partial<MediaInput> = {}): MediaInput {
  const data = Buffer.from('89504e470d0a1a0a', 'hex');
  return { data, mimetype: 'image/png', sha256: createHash('sha256').update(data).digest('hex'), ...overrides };
}

function sentRecord(message: MessageRecord['message'], id = SENT_MID): MessageRecord {
  return { key: { remoteJid: USER, fromMe: true, id }, message, messageTimestamp: '1718000100', status: 'PENDING', provider: 'instagram' };
}

describe('instagram link', () => {
  const graph = useMockGraph();

  const driver = () => createInstagramDriver({ graphBaseUrl: graph.url, clock: { now: () => NOW } });
  const input = { accessToken: TOKEN, appSecret: APP_SECRET, verifyToken: 'verify-token-instagram-1234', accountId: ACCOUNT };

  it('reads the account node with the token and answers the link to store', async () => {
    graph.on('GET', `/v26.0/${ACCOUNT}`, { status: 200, body: { id: ACCOUNT, username: 'parley.shop', name: 'Parley Shop' } });
    assert.deepStrictEqual(await driver().link!(input), { ...link, username: 'parley.shop', linkedAt: NOW });
    const [request] = graph.requests;
    assert.deepStrictEqual(
      { method: request!.method, query: request!.query, authorization: request!.headers.authorization },
      { method: 'GET', query: { fields: 'id,username,name', appsecret_proof: PROOF }, authorization: `Bearer ${TOKEN}` },
    );
  });

  it('names the field of invalid input before any Graph call', async () => {
    for (const [bad, message] of [
      [{ ...input, appSecret: undefined }, 'appSecret is required and must be a non-empty string'],
      [{ ...input, accessToken: '  ' }, 'accessToken is required and must be a non-empty string'],
      [{ ...input, verifyToken: 'two words' }, 'verifyToken must be a single token of at most 2048 characters'],
      [{ ...input, accountId: 'parley.shop' }, 'accountId must be the numeric account id (digits only)'],
    ] as const) {
      await assert.rejects(driver().link!(bad), (err: unknown) => err instanceof ValidationError && err.message === message);
    }
    assert.equal(graph.requests.length, 0);
  });

  it('rejects an expired token with the Graph message and code, naming accessToken', async () => {
    graph.on('GET', `/v26.0/${ACCOUNT}`, { status: 400, body: EXPIRED });
    await assert.rejects(driver().link!(input), (err: unknown) => {
      assert.ok(err instanceof ValidationError);
      assert.equal(err.message, 'accessToken was rejected: Instagram access token is invalid or expired (OAuthException 190): '
        + 'Error validating access token: Session has expired on Tuesday, 11-Jun-24 10:00:00 PDT.; link the account again with a valid token');
      assert.deepStrictEqual(err.details, {
        retryable: false, upstreamCode: 190, kind: 'token', httpStatus: 400, subcode: 463, type: 'OAuthException', fbtraceId: 'AqX3fbtrace01', field: 'accessToken',
      });
      assert.ok(!err.message.includes(TOKEN));
      return true;
    });
  });

  it('rejects a wrong app secret (invalid appsecret_proof), naming appSecret', async () => {
    graph.on('GET', `/v26.0/${ACCOUNT}`, {
      status: 400, body: { error: { message: 'Invalid appsecret_proof provided in the API argument', type: 'GraphMethodException', code: 100 } },
    });
    await assert.rejects(driver().link!(input), (err: unknown) => err instanceof ValidationError && (err.details as { field: string }).field === 'appSecret');
  });

  it('rejects an account the token cannot see, naming accountId', async () => {
    graph.on('GET', `/v26.0/${ACCOUNT}`, {
      status: 400,
      body: { error: { message: `Unsupported get request. Object with ID '${ACCOUNT}' does not exist`, type: 'GraphMethodException', code: 100, error_subcode: 33 } },
    });
    await assert.rejects(driver().link!(input), (err: unknown) => err instanceof ValidationError && (err.details as { field: string }).field === 'accountId');
  });

  it('keeps a rate limit an UpstreamError marked retryable', async () => {
    graph.on('GET', `/v26.0/${ACCOUNT}`, { status: 400, body: { error: { message: '(#4) Application request limit reached', type: 'OAuthException', code: 4 } } });
    await assert.rejects(driver().link!(input), (err: unknown) => err instanceof UpstreamError && (err.details as { retryable: boolean }).retryable === true);
  });
});

describe('instagram messaging', () => {
  const graph = useMockGraph();
  let messaging: MessagingCapability;

  beforeEach(async () => {
    graph.on('POST', '/v26.0/me/messages', { status: 200, body: { recipient_id: USER, message_id: SENT_MID } });
    const storage = new MemoryStorage();
    await storage.init();
    const harness = createDriverHarness(
      createInstagramDriver({ graphBaseUrl: graph.url, clock: { now: () => NOW } }), storage, [testInstance('ins_ig', [link])],
    );
    messaging = (await harness.adapter('ins_ig')).capabilities.messaging!;
  });

  function sent(): unknown[] {
    return graph.requests.map((request) => request.json ?? request.form);
  }

  it('supports exactly the send types Instagram can deliver', () => {
    const all: OutgoingType[] = [
      'text', 'image', 'audio', 'video', 'document', 'sticker', 'video-note', 'contact', 'contacts', 'location', 'live-location', 'link',
      'reaction', 'title', 'button_reply', 'button_action', 'survey', 'poll', 'pix', 'event', 'pin', 'unpin', 'call-link', 'product',
      'group-invite', 'request-phone',
    ];
    assert.deepStrictEqual(all.filter((type) => messaging.supports(type)), [
      'text', 'image', 'audio', 'video', 'document', 'reaction', 'title', 'button_reply', 'button_action',
    ]);
  });

  it('sends text with bearer token and appsecret_proof, answering a PENDING record keyed by message_id', async () => {
    const record = await messaging.send({ to: USER, content: { type: 'text', text: 'Hello from Parley' } });
    assert.deepStrictEqual(record, sentRecord({ extendedTextMessage: { text: 'Hello from Parley' } }));
    const [request] = graph.requests;
    assert.deepStrictEqual(
      { path: request!.path, query: request!.query, auth: request!.headers.authorization, type: request!.headers['content-type'], body: request!.json },
      {
        path: '/v26.0/me/messages', query: { appsecret_proof: PROOF }, auth: `Bearer ${TOKEN}`, type: 'application/json',
        body: { recipient: { id: USER }, message: { text: 'Hello from Parley' } },
      },
    );
  });

  it('replies with reply_to beside the message', async () => {
    const quoted: MessageRecord = {
      key: { remoteJid: USER, fromMe: false, id: 'aWdfZAG1quoted' }, message: { extendedTextMessage: { text: 'hi' } },
      messageTimestamp: '1718000000', status: 'DELIVERY_ACK', provider: 'instagram',
    };
    const record = await messaging.send({ to: USER, content: { type: 'text', text: 'Sure!' }, quoted });
    assert.deepStrictEqual(sent(), [{ recipient: { id: USER }, message: { text: 'Sure!' }, reply_to: { mid: 'aWdfZAG1quoted' } }]);
    assert.deepStrictEqual(record.message, { extendedTextMessage: { text: 'Sure!', contextInfo: { stanzaId: 'aWdfZAG1quoted' } } });
  });

  it('sends an image by its URL and the caption as a following text', async () => {
    const url = 'https://cdn.example.com/jacket.png';
    const record = await messaging.send({ to: USER, content: { type: 'image', media: media({ sourceUrl: url }), caption: 'Blue jacket' } });
    assert.deepStrictEqual(sent(), [
      { recipient: { id: USER }, message: { attachment: { type: 'image', payload: { url, is_reusable: true } } } },
      { recipient: { id: USER }, message: { text: 'Blue jacket' } },
    ]);
    assert.deepStrictEqual(record, sentRecord({ imageMessage: { url, mimetype: 'image/png', caption: 'Blue jacket' } }));
  });

  it('uploads base64 media through the attachment upload API (multipart, platform=instagram)', async () => {
    graph.on('POST', '/v26.0/me/message_attachments', { status: 200, body: { attachment_id: '1857777774821032' } });
    const input = media();
    await messaging.send({ to: USER, content: { type: 'image', media: input } });
    const [upload, message] = graph.requests;
    assert.equal(upload!.path, '/v26.0/me/message_attachments');
    assert.equal(upload!.headers.authorization, `Bearer ${TOKEN}`);
    assert.deepStrictEqual(upload!.form, {
      platform: 'instagram',
      message: JSON.stringify({ attachment: { type: 'image', payload: { is_reusable: true } } }),
      filedata: { fileName: 'image.png', type: 'image/png', data: input.data },
    });
    assert.deepStrictEqual(message!.json, {
      recipient: { id: USER }, message: { attachment: { type: 'image', payload: { attachment_id: '1857777774821032' } } },
    });
  });

  it('sends documents as file attachments and audio as audio attachments', async () => {
    await messaging.send({
      to: USER, content: { type: 'document', media: media({ sourceUrl: 'https://cdn.example.com/c.pdf', mimetype: 'application/pdf' }), fileName: 'c.pdf', mimetype: 'application/pdf' },
    });
    await messaging.send({ to: USER, content: { type: 'audio', media: media({ sourceUrl: 'https://cdn.example.com/v.m4a', mimetype: 'audio/mp4' }), ptt: true } });
    assert.deepStrictEqual(sent(), [
      { recipient: { id: USER }, message: { attachment: { type: 'file', payload: { url: 'https://cdn.example.com/c.pdf', is_reusable: true } } } },
      { recipient: { id: USER }, message: { attachment: { type: 'audio', payload: { url: 'https://cdn.example.com/v.m4a', is_reusable: true } } } },
    ]);
  });

  it('sends a titled message as text with the title line first', async () => {
    await messaging.send({ to: USER, content: { type: 'title', title: 'Order #123', text: 'Shipped today', footer: 'Parley Shop' } });
    assert.deepStrictEqual(sent(), [{ recipient: { id: USER }, message: { text: 'Order #123\n\nShipped today\n\nParley Shop' } }]);
  });

  it('sends reply buttons as quick replies', async () => {
    const record = await messaging.send({
      to: USER,
      content: { type: 'button_reply', header: { title: 'Size' }, text: 'Which size?', buttons: [{ id: 'size_m', text: 'M' }, { id: 'size_l', text: 'L' }] },
    });
    assert.deepStrictEqual(sent(), [{
      recipient: { id: USER },
      message: {
        text: 'Size\n\nWhich size?',
        quick_replies: [{ content_type: 'text', title: 'M', payload: 'size_m' }, { content_type: 'text', title: 'L', payload: 'size_l' }],
      },
    }]);
    assert.deepStrictEqual(record.message, {
      buttonsMessage: {
        headerText: 'Size', contentText: 'Which size?',
        buttons: [{ buttonId: 'size_m', buttonText: { displayText: 'M' } }, { buttonId: 'size_l', buttonText: { displayText: 'L' } }],
      },
    });
  });

  it('sends URL action buttons as a button template and refuses call and copy buttons with 422', async () => {
    await messaging.send({ to: USER, content: { type: 'button_action', text: 'Track it', buttons: [{ type: 'cta_url', text: 'Open', url: 'https://parley.example/t/1' }] } });
    assert.deepStrictEqual(sent(), [{
      recipient: { id: USER },
      message: { attachment: { type: 'template', payload: { template_type: 'button', text: 'Track it', buttons: [{ type: 'web_url', url: 'https://parley.example/t/1', title: 'Open' }] } } },
    }]);
    await assert.rejects(
      messaging.send({ to: USER, content: { type: 'button_action', text: 'Call', buttons: [{ type: 'cta_call', text: 'Call us', phone_number: '5511999990000' }] } }),
      (err: unknown) => err instanceof CapabilityNotSupportedError && err.status === 422
        && err.message === 'instagram does not support cta_call buttons: Instagram button templates carry only cta_url buttons',
    );
    await assert.rejects(
      messaging.send({ to: USER, content: { type: 'button_action', text: 'Code', buttons: [{ type: 'cta_copy', text: 'Copy', copy_code: 'SALE10' }] } }),
      (err: unknown) => err instanceof CapabilityNotSupportedError
        && err.message === "instagram does not support cta_copy buttons: Meta's button template has no copy-code button; send the code as text",
    );
    assert.equal(graph.requests.length, 1);
  });

  it('reacts with love, removes a reaction with an empty emoji and refuses other emoji', async () => {
    const target = { remoteJid: USER, fromMe: false, id: 'aWdfZAG1target' };
    const record = await messaging.send({ to: USER, content: { type: 'reaction', emoji: '❤️', target } });
    await messaging.send({ to: USER, content: { type: 'reaction', emoji: '', target } });
    await assert.rejects(messaging.send({ to: USER, content: { type: 'reaction', emoji: '😂', target } }), ValidationError);
    assert.deepStrictEqual(sent(), [
      { recipient: { id: USER }, sender_action: 'react', payload: { message_id: 'aWdfZAG1target', reaction: 'love' } },
      { recipient: { id: USER }, sender_action: 'unreact', payload: { message_id: 'aWdfZAG1target' } },
    ]);
    assert.deepStrictEqual(record, sentRecord({ reactionMessage: { key: target, text: '❤️' } }, 'aWdfZAG1target-reaction'));
  });

  it('sends presence as sender actions', async () => {
    await messaging.sendPresence({ to: USER, status: 'composing' });
    await messaging.sendPresence({ to: USER, status: 'paused' });
    await messaging.sendPresence({ to: USER, status: 'available' });
    assert.deepStrictEqual(sent(), [
      { recipient: { id: USER }, sender_action: 'typing_on' },
      { recipient: { id: USER }, sender_action: 'typing_off' },
      { recipient: { id: USER }, sender_action: 'mark_seen' },
    ]);
  });

  it('refuses a recipient that is not an IGSID and a type Instagram cannot send, before any I/O', async () => {
    await assert.rejects(messaging.send({ to: '+55 11 99999-0000', content: { type: 'text', text: 'x' } }), (err: unknown) =>
      err instanceof ValidationError && err.message === 'body.to must be the Instagram-scoped user id (IGSID) of the recipient (digits)');
    await assert.rejects(messaging.send({ to: USER, content: { type: 'poll', name: 'Q', values: ['a'], selectableCount: 1 } }), (err: unknown) =>
      err instanceof CapabilityNotSupportedError && err.message === 'instagram does not support sending poll messages');
    assert.equal(graph.requests.length, 0);
  });

  it('maps an expired token on send to an UpstreamError telling to link again', async () => {
    graph.on('POST', '/v26.0/me/messages', { status: 400, body: EXPIRED });
    await assert.rejects(messaging.send({ to: USER, content: { type: 'text', text: 'x' } }), (err: unknown) => {
      assert.ok(err instanceof UpstreamError);
      assert.equal(err.status, 502);
      assert.match(err.message, /^Instagram access token is invalid or expired \(OAuthException 190\): Error validating access token/);
      assert.deepStrictEqual({ retryable: (err.details as { retryable: boolean }).retryable, code: (err.details as { upstreamCode: number }).upstreamCode }, { retryable: false, code: 190 });
      return true;
    });
  });

  it('maps rate limits on send (code 613, HTTP 429) to retryable UpstreamErrors', async () => {
    graph.on('POST', '/v26.0/me/messages',
      { status: 400, body: { error: { message: 'Calls to this api have exceeded the rate limit.', type: 'OAuthException', code: 613 } } },
      { status: 429, body: {} });
    for (const code of [613, 429]) {
      await assert.rejects(messaging.send({ to: USER, content: { type: 'text', text: 'x' } }), (err: unknown) =>
        err instanceof UpstreamError && (err.details as { retryable: boolean; upstreamCode: number }).retryable === true
        && (err.details as { upstreamCode: number }).upstreamCode === code);
    }
  });

  it('answers 409 when the instance has no Instagram link any more', async () => {
    const storage = new MemoryStorage();
    await storage.init();
    const adapter = await createInstagramDriver({ graphBaseUrl: graph.url }).create({
      instanceId: 'ins_unlinked', instance: async () => testInstance('ins_unlinked', []), emit: () => {}, storage,
      logger: { child() { return this; }, trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} },
    });
    await assert.rejects(adapter.capabilities.messaging!.send({ to: USER, content: { type: 'text', text: 'x' } }), ConflictError);
    assert.equal(graph.requests.length, 0);
  });
});
