import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { ParleyApiError, type InstanceClient } from '@parley/client';
import { FakeClock } from '@parley/testkit';
import { startTestHost, type TestHost } from '@parley/testkit/host';
import { MockBotApi } from '../src/testing/index.js';
import { PNG_PIXEL, telegramPlugins } from './support.js';

const BOT_ID = 7_000_001;
const SECRET = 'tg-secret_0123456789';
const ADA = { id: 555_001, first_name: 'Ada', last_name: 'Lovelace', username: 'ada' };

/** The server's error for a typed-client call, or a failure when it succeeded. */
async function failure(call: Promise<unknown>): Promise<ParleyApiError> {
  try {
    await call;
  } catch (err) {
    assert.ok(err instanceof ParleyApiError, String(err));
    return err;
  }
  assert.fail('the call succeeded');
}

describe('the Telegram example channel through a real Parley server', () => {
  const clock = new FakeClock(Date.UTC(2030, 0, 2, 3, 4, 5));
  let mock: MockBotApi;
  let host: TestHost;
  let token: string;
  let instance: { id: string; key: string };
  let api: InstanceClient;
  // The generated client lists the channels of the server it was generated from; a plugin's channel
  // is in the running server's schemas (checked below), so its id is passed through untyped.
  const send = (operation: 'sendText' | 'sendImage' | 'sendDocument' | 'sendButtonAction', body: Record<string, unknown>) =>
    api.call(operation, { body: { ...body, provider: 'telegram' } as never });

  before(async () => {
    mock = await MockBotApi.start();
    token = mock.addBot(BOT_ID, 'parley_shop_bot');
    mock.addChat(ADA.id);
    host = await startTestHost({ plugins: telegramPlugins(mock.url), clock });
    const created = await host.client.call('adminCreateInstance', {
      body: { channel: 'sandbox', name: 'shop', webhook: { allowWebhook: true, webhookMessage: `${host.receiver.url}/messages` } },
    });
    instance = created.data;
    api = host.client.instance(instance.key);
  });
  after(async () => {
    // Every status the server answered is one its OpenAPI document lists for the route (the driver route's `errors` included).
    assert.deepEqual(host?.server.undeclaredAnswers(), []);
    await host?.stop();
    await mock?.close();
  });
  beforeEach(() => mock.reset());

  /** Webhook deliveries of a type received so far, once at least `count` arrived since the test began. */
  const deliveries = (type: string) => host.receiver.requests.filter((r) => (r.json as { type?: string } | undefined)?.type === type);
  let mark = 0;
  beforeEach(() => {
    mark = host.receiver.requests.length;
  });
  async function statusDeliveries(count: number) {
    for (let i = 0; i < 250 && deliveries('message.status').filter((r) => r.index >= mark).length < count; i++) await new Promise((r) => setTimeout(r, 20));
    return deliveries('message.status').filter((r) => r.index >= mark);
  }

  const link = (body: Record<string, unknown>) => api.call('linkChannel', { params: { channel: 'telegram' as never }, body: body as never });

  it('lists telegram as a provider of sends in /openapi.json', async () => {
    type Doc = { paths: Record<string, { post: { requestBody: { content: Record<string, { schema: { properties: { provider: { enum: string[] } } } }> } } }> };
    const doc = (await (await fetch(`${host.url}/openapi.json`)).json()) as Doc;
    const provider = doc.paths['/{key}/message/text']!.post.requestBody.content['application/json']!.schema.properties.provider;
    assert.deepEqual([...provider.enum].sort(), ['telegram', 'whatsapp']);
  });

  it('refuses a token the Bot API refuses, and a bot that is not the account, storing nothing', async () => {
    const bad = await failure(link({ accessToken: `${BOT_ID}:wrong`, appSecret: SECRET, verifyToken: 'unused', accountId: String(BOT_ID) }));
    assert.equal(bad.status, 400);
    assert.match(bad.message, /accessToken was refused by the Telegram Bot API: Unauthorized/);
    const other = await failure(link({ accessToken: token, appSecret: SECRET, verifyToken: 'unused', accountId: '42' }));
    assert.equal(other.status, 400);
    assert.match(other.message, /accountId 42 is not the bot of this token \(7000001\)/);
    assert.deepEqual((await api.call('listLinks')).data, {});
  });

  it('links the bot: getMe, then setWebhook to the server with the secret token', async () => {
    const res = await link({ accessToken: token, appSecret: SECRET, verifyToken: 'unused', accountId: String(BOT_ID) });
    assert.equal(res.status, 200);
    assert.equal((res.data as { accountId: string }).accountId, String(BOT_ID));
    assert.deepEqual(mock.calls.map((c) => [c.method, c.token]), [['getMe', token], ['setWebhook', token]]);
    assert.deepEqual(mock.calls[1]!.params, {
      url: `${host.url}/telegram/webhook/${BOT_ID}`, secret_token: SECRET, allowed_updates: ['message', 'edited_message'],
    });
  });

  it('sends a text: the Bot API gets exactly sendMessage {chat_id, text}, answered PENDING, then reported sent', async () => {
    const res = await send('sendText', { to: String(ADA.id), text: 'Your order has shipped' });
    assert.equal(mock.calls.length, 1);
    assert.deepEqual(mock.calls[0], { token, method: 'sendMessage', params: { chat_id: String(ADA.id), text: 'Your order has shipped' }, files: {} });
    const data = res.data as { key: { id: string; remoteJid: string; fromMe: boolean }; status: string; provider: string; message: unknown; messageTimestamp: string };
    assert.deepEqual(data.key, { remoteJid: String(ADA.id), fromMe: true, id: data.key.id });
    assert.match(data.key.id, new RegExp(`^${ADA.id}_\\d+$`));
    assert.equal(data.status, 'PENDING');
    assert.equal(data.provider, 'telegram');
    assert.deepEqual(data.message, { extendedTextMessage: { text: 'Your order has shipped' } });
    // The Bot API's answer means Telegram has the message: the channel reports `sent` (SERVER_ACK), and no more.
    const [status] = await statusDeliveries(1);
    assert.deepEqual((status!.json as { data: unknown }).data, {
      messageId: data.key.id, chatJid: String(ADA.id), recipientId: String(ADA.id), status: 'sent', timestamp: Number(data.messageTimestamp),
    });
    const stored = await api.call('getMessage', { params: { messageId: data.key.id } });
    assert.equal((stored.data as { status: string }).status, 'SERVER_ACK');
  });

  it('sends an image and a document as multipart uploads with their captions and names', async () => {
    await send('sendImage', { to: String(ADA.id), url: `data:image/png;base64,${PNG_PIXEL.toString('base64')}`, caption: 'The blue one' });
    await send('sendDocument', {
      to: String(ADA.id), url: `data:application/pdf;base64,${Buffer.from('%PDF-1.4 invoice').toString('base64')}`,
      mimetype: 'application/pdf', fileName: 'invoice-17.pdf',
    });
    const [photo, document] = mock.calls;
    assert.equal(photo!.method, 'sendPhoto');
    assert.deepEqual(photo!.params, { chat_id: String(ADA.id), caption: 'The blue one' });
    assert.deepEqual(photo!.files.photo!.data, PNG_PIXEL);
    assert.equal(photo!.files.photo!.type, 'image/png');
    assert.equal(document!.method, 'sendDocument');
    assert.deepEqual(document!.params, { chat_id: String(ADA.id) });
    assert.equal(document!.files.document!.name, 'invoice-17.pdf');
    assert.equal(document!.files.document!.data.toString(), '%PDF-1.4 invoice');
  });

  it('answers 422 for what Telegram cannot send here, before calling the Bot API', async () => {
    const err = await failure(send('sendButtonAction', { to: String(ADA.id), text: 'Track it', buttons: [{ type: 'cta_url', text: 'Track', url: 'https://example.com/t/17' }] }));
    assert.equal(err.status, 422);
    assert.equal(err.code, 'capability_not_supported');
    assert.equal(err.message, 'telegram does not support sending button_action messages');
    assert.equal(mock.calls.length, 0);
  });

  it('maps Bot API refusals: unknown chat is 400 on body.to, flood control is a retryable 502 with retry_after', async () => {
    const unknown = await failure(send('sendText', { to: '999', text: 'hello?' }));
    assert.equal(unknown.status, 400);
    assert.equal(unknown.message, 'body.to: Telegram Bot API sendMessage: Bad Request: chat not found');
    mock.rateLimit('sendMessage', 7);
    const limited = await failure(send('sendText', { to: String(ADA.id), text: 'again' }));
    assert.equal(limited.status, 502);
    assert.equal(limited.code, 'upstream_error');
    assert.deepEqual(limited.details, { retryable: true, upstreamCode: 429, retryAfter: 7 });
  });

  it('an update Telegram posts reaches the webhook receiver as the native event, once', async () => {
    const { update, status, body } = await mock.userWrites(token, ADA, { text: 'Where is my parcel?' }, 1_893_553_445);
    assert.equal(status, 200);
    assert.deepEqual(body, { received: 1 });
    for (let i = 0; i < 250 && deliveries('message').length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    const [delivery, ...more] = deliveries('message');
    assert.deepEqual(more, []);
    assert.equal(delivery!.url, '/messages');
    const event = delivery!.json as { id: string };
    const id = `${ADA.id}_${update.message!.message_id}`;
    assert.deepEqual(event, {
      id: event.id, type: 'message', instance: instance.id, provider: 'telegram', timestamp: '2030-01-02T03:04:05.000Z',
      data: {
        message: {
          id, chatJid: String(ADA.id), from: String(ADA.id), fromUserId: String(ADA.id), fromMe: false, timestamp: 1_893_553_445,
          chatType: 'individual', pushName: 'Ada Lovelace', username: 'ada', content: { type: 'text', body: 'Where is my parcel?' },
        },
      },
    });
    // Telegram redelivers an update until it gets a 2xx: the second delivery emits nothing.
    assert.deepEqual(await mock.deliver(token, update), { status: 200, body: { received: 0 } });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(deliveries('message').length, 1);
  });

  it('a received photo is downloaded through getFile on demand, and a reply quotes the Telegram message', async () => {
    mock.addFile('AgACphoto-large', PNG_PIXEL);
    const { update } = await mock.userWrites(token, ADA, {
      photo: [
        { file_id: 'AgACphoto-small', file_unique_id: 'small', width: 1, height: 1 },
        { file_id: 'AgACphoto-large', file_unique_id: 'large', width: 800, height: 800 },
      ],
      caption: 'This one arrived broken',
    }, 1_893_553_500);
    const id = `${ADA.id}_${update.message!.message_id}`;
    const media = await fetch(`${host.url}/${instance.key}/message/${encodeURIComponent(id)}/media`);
    assert.equal(media.status, 200);
    assert.deepEqual(Buffer.from(await media.arrayBuffer()), PNG_PIXEL, 'the bytes of the largest size');
    assert.deepEqual(mock.calls.map((c) => [c.method, c.params]), [['getFile', { file_id: 'AgACphoto-large' }]]);

    mock.reset();
    await api.call('replyText', { params: { messageId: id }, body: { to: String(ADA.id), text: 'Sorry! A new one is on its way.' } });
    assert.deepEqual(mock.calls.map((c) => [c.method, c.params]), [
      ['sendMessage', { chat_id: String(ADA.id), text: 'Sorry! A new one is on its way.', reply_parameters: { message_id: update.message!.message_id } }],
    ]);
  });

  it('refuses an update without the secret token or without update_id; acknowledges a bot linked nowhere; emitting nothing', async () => {
    const post = (botId: number | string, body: unknown, secret = SECRET) => fetch(`${host.url}/telegram/webhook/${botId}`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secret }, body: JSON.stringify(body),
    });
    const before = deliveries('message').length;
    const malformed = await post(BOT_ID, { message: { text: 'x' } });
    assert.equal(malformed.status, 400);
    assert.match(((await malformed.json()) as { error: { message: string } }).error.message, /update_id/);
    const elsewhere = await post(9_999_999, { update_id: 5 });
    assert.equal(elsewhere.status, 200);
    assert.deepEqual(await elsewhere.json(), { received: 0 });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(deliveries('message').length, before);

    const res = await fetch(`${host.url}/telegram/webhook/${BOT_ID}`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'guess' },
      body: JSON.stringify({ update_id: 1, message: { message_id: 1, date: 1, chat: { id: 1, type: 'private' }, from: { id: 1, is_bot: false, first_name: 'X' }, text: 'x' } }),
    });
    // A wrong secret for a linked bot: the answer of a bot linked nowhere, and nothing emitted.
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { received: 0 });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(deliveries('message').length, before);
  });
});
