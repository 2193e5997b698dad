import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { MockSignalNetwork } from '@parley-example/channel-signal/testing';
import { startHttpReceiver, type HttpReceiver } from '@parley/testkit';
import { startTestServer, type TestServer } from '../support/test-server.js';

const SHOP = '0b6f3f6e-4d57-4c1e-9a51-6d8d4a1c2e01';
const ADA = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const GROUP = 'group.c2hvcC1jdXN0b21lcnMtZ3JvdXA=';

type SentRecord = { key: { id: string; remoteJid: string; fromMe: boolean }; provider: string; status: string; message: unknown };

/**
 * A third-party MAIN channel whose addresses are no phone numbers (examples/channel-signal: account
 * UUIDs and group ids) through the real server: the host normalizes and checks every `to` with the
 * driver's addressing, never with WhatsApp's rules.
 */
describe('a main channel with non-phone addresses (examples/channel-signal)', () => {
  let network: MockSignalNetwork;
  let receiver: HttpReceiver;
  let t: TestServer;
  let instance: { id: string; key: string };

  const webhooks = (type: string) => receiver.requests.filter((r) => (r.json as { type?: string } | undefined)?.type === type);
  const push = (envelope: Record<string, unknown>) => t.admin('POST', `/signal/receive/${instance.id}`, { account: SHOP, envelope });

  before(async () => {
    network = await MockSignalNetwork.start();
    network.addAccount(SHOP, 'Shop');
    network.addAccount(ADA, 'Ada');
    network.addGroup(GROUP);
    receiver = await startHttpReceiver();
    t = await startTestServer({
      plugins: [
        { package: '@parley/storage-memory' }, { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } }, { package: '@parley/webhook-native' },
        { package: fileURLToPath(import.meta.resolve('@parley-example/channel-signal')), options: { apiBaseUrl: network.url } },
      ],
    });
    const created = await t.admin('POST', '/admin/instances', {
      channel: 'signal', name: 'signal-shop', options: { account: SHOP.toUpperCase() },
      webhook: { allowWebhook: true, webhookMessage: `${receiver.url}/messages`, webhookConnection: `${receiver.url}/connection` },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    instance = created.body.data;
    const connected = await t.request('POST', `/${instance.key}/instance`);
    assert.equal(connected.status, 200, JSON.stringify(connected.body));
  });
  after(async () => {
    await t?.stop();
    await receiver?.close();
    await network?.close();
  });

  it('describes `to` in /openapi.json by each main channel\'s addressing, not as a phone number', async () => {
    const { body: openapi } = await t.request('GET', '/openapi.json');
    const to = openapi.paths['/{key}/message/text'].post.requestBody.content['application/json'].schema.properties.to;
    assert.equal(to.pattern, undefined);
    assert.match(to.description, /signal: A Signal account UUID, or a group id/);
    assert.match(to.description, /whatsapp: Phone number with country code/);
  });

  it('sends to an account UUID (normalized to lower case) and to a group id; the network gets exactly those', async () => {
    const before = network.sent.length;
    const person = await t.request('POST', `/${instance.key}/message/text`, { to: ` ${ADA.toUpperCase()} `, text: 'Your order has shipped' });
    assert.equal(person.status, 200, JSON.stringify(person.body));
    const record = person.body.data as SentRecord;
    assert.deepEqual({ remoteJid: record.key.remoteJid, fromMe: record.key.fromMe, provider: record.provider }, { remoteJid: ADA, fromMe: true, provider: 'signal' });
    assert.deepEqual(record.message, { extendedTextMessage: { text: 'Your order has shipped' } });
    const group = await t.request('POST', `/${instance.key}/message/text`, { to: GROUP, text: 'Hello, customers' });
    assert.equal(group.status, 200, JSON.stringify(group.body));
    assert.equal((group.body.data as SentRecord).key.remoteJid, GROUP);
    assert.deepEqual(network.sent.slice(before).map(({ account, recipient, message }) => ({ account, recipient, message })), [
      { account: SHOP, recipient: ADA, message: 'Your order has shipped' },
      { account: SHOP, recipient: GROUP, message: 'Hello, customers' },
    ]);
    // The channel reports `sent`; the peer's receipt brings `delivered`, delivered as webhooks.
    const timestamp = Number(record.key.id.split('.')[0]);
    assert.equal((await push({ source: ADA, timestamp: network.nextTimestamp(), receiptMessage: { type: 'DELIVERY', timestamps: [timestamp] } })).status, 200);
    const statuses = await t.waitFor(() => {
      const seen = webhooks('message.status').map((r) => (r.json as { data: { messageId: string; status: string } }).data).filter((d) => d.messageId === record.key.id);
      return seen.length >= 2 && seen;
    }, 5000, 'sent and delivered webhooks');
    assert.deepEqual(statuses.map((s) => s.status), ['sent', 'delivered']);
    const stored = await t.request('GET', `/${instance.key}/message/${encodeURIComponent(record.key.id)}`);
    assert.equal(stored.body.data.status, 'DELIVERY_ACK');
  });

  it('records a send it has not taken yet with the neutral record members (no driver pendingRecord), at the normalized address', async () => {
    const sent = network.sent.length;
    const res = await t.request('POST', `/${instance.key}/message/text`, { to: ADA.toUpperCase(), text: 'Later', delay: 60_000 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const queued = res.body.data as SentRecord & { queue: { state: string } };
    assert.deepEqual({ remoteJid: queued.key.remoteJid, message: queued.message, state: queued.queue.state }, { remoteJid: ADA, message: { extendedTextMessage: { text: 'Later' } }, state: 'scheduled' });
    assert.equal((await t.request('DELETE', `/${instance.key}/queue/${encodeURIComponent(queued.key.id)}`)).status, 200);
    assert.equal(network.sent.length, sent);
  });

  it('answers 400 naming body.to for an address the channel cannot reach (a phone number, a JID), sending and storing nothing', async () => {
    const sent = network.sent.length;
    const chats = (await t.request('GET', `/${instance.key}/chat`)).body.data.length;
    for (const to of ['5511999990000', '5511999990000@s.whatsapp.net', 'not-an-address']) {
      const res = await t.request('POST', `/${instance.key}/message/text`, { to, text: 'nope' });
      assert.equal(res.status, 400, to);
      assert.equal(res.body.error.code, 'validation_failed');
      assert.match(res.body.error.message, /^body\.to must be a Signal account UUID or a group id/, to);
    }
    // This server's main channels (WhatsApp through the sandbox, Signal) name groups differently, so the
    // schema takes any group id and the instance's channel checks it: a WhatsApp JID is no Signal group.
    for (const groupJid of ['120363000000000000@g.us', 'group.short']) {
      const invite = await t.request('POST', `/${instance.key}/message/group-invite`, { to: ADA, groupJid, groupName: 'Customers', inviteCode: 'AbCdEfGh12345' });
      assert.equal(invite.status, 400, groupJid);
      assert.equal(invite.body.error.message, 'body.groupJid must be a Signal group id (`group.` followed by the base64 group id).', groupJid);
    }
    const presence = await t.request('POST', `/${instance.key}/message/presence`, { to: '5511999990000', status: 'composing' });
    assert.equal(presence.status, 400);
    assert.match(presence.body.error.message, /^body\.to must be a Signal account UUID/);
    assert.equal(network.sent.length, sent);
    assert.equal((await t.request('GET', `/${instance.key}/chat`)).body.data.length, chats);
  });

  it('receives a message as a webhook, lists its chat, and replies to it quoting it', async () => {
    const timestamp = network.nextTimestamp();
    const received = await push({ source: ADA, sourceName: 'Ada', timestamp, dataMessage: { message: 'Where is my parcel?' } });
    assert.deepEqual({ status: received.status, body: received.body }, { status: 200, body: { received: 1 } });
    const id = `${timestamp}.${ADA}`;
    const delivery = await t.waitFor(() => webhooks('message').find((r) => (r.json as { data: { message: { id: string } } }).data.message.id === id), 5000, 'the message webhook');
    const event = (delivery.json as { data: { message: { chatJid: string; from: string; content: unknown } } }).data.message;
    assert.deepEqual({ chatJid: event.chatJid, from: event.from, content: event.content }, { chatJid: ADA, from: ADA, content: { type: 'text', body: 'Where is my parcel?' } });
    await t.settle();
    const chats = (await t.request('GET', `/${instance.key}/chat`)).body.data as { id: string }[];
    assert.ok(chats.some((c) => c.id === ADA) && chats.some((c) => c.id === GROUP), JSON.stringify(chats));
    const messages = await t.request('GET', `/${instance.key}/chat/${ADA}/messages`);
    assert.ok((messages.body.data as SentRecord[]).some((m) => m.key.id === id && !m.key.fromMe));

    const reply = await t.request('POST', `/${instance.key}/message/${encodeURIComponent(id)}/text`, { to: ADA, text: 'It arrives tomorrow' });
    assert.equal(reply.status, 200, JSON.stringify(reply.body));
    assert.deepEqual(network.sent.at(-1), { account: SHOP, recipient: ADA, message: 'It arrives tomorrow', quote: { author: ADA, timestamp }, timestamp: network.sent.at(-1)!.timestamp });
  });
});
