import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startMockGraph, type MockGraph } from '@parley/meta-graph/testing';
import { FakeClock, startHttpReceiver, type HttpReceiver } from '@parley/testkit';
import { startClockedInstagramServer } from '../support/social-server.js';
import type { TestServer } from '../support/test-server.js';

// The Instagram account and user of the channel plugins' fixtures.
const IG_ACCOUNT = '17841405822304914';
const IG_USER = '6543210987654321';
const IG_LINK = { accessToken: 'IGQWRclockaccesstoken0123456789', appSecret: 'instagram-app-secret-0123456789ab', verifyToken: 'verify-clock-0001', accountId: IG_ACCOUNT };
const SENT_MID = 'aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOjE3ODQxNDA1ODIyMzA0OTE0OjM0MDI4MjM2NjclockZDZD';
const RETRY_MS = 10 * 60_000;
const seconds = (ms: number) => Math.floor(ms / 1000);

/**
 * The server's clock is the one source of domain time: with a fake clock, the timestamps of a send's
 * record, its chat and the instance, and the schedule of webhook retries follow it, not the wall clock.
 */
describe('a controlled clock drives the server', () => {
  const clock = new FakeClock();
  let t: TestServer;
  let graph: MockGraph;
  let receiver: HttpReceiver;

  before(async () => {
    graph = await startMockGraph();
    receiver = await startHttpReceiver();
    // One retry, 10 minutes after the first failure, without jitter; the worker is woken every second.
    t = await startClockedInstagramServer(clock, graph, {
      webhooks: { retry: { schedule: [RETRY_MS], jitter: 0 }, housekeeping: { sweepCron: '* * * * * *' } },
    });
  });
  after(async () => {
    await t.stop();
    await graph.close();
    await receiver.close();
  });

  it("stamps the instance, the link, the sent record and its chat with the clock's time", async () => {
    const created = await t.createInstance({ name: 'clock-shop' });
    assert.equal((await t.client().call('adminGetInstance', { params: { key: created.key } })).data.createdAt, FakeClock.START);

    const linkedAt = clock.advance(1_000);
    graph.on('GET', `/v26.0/${IG_ACCOUNT}`, { status: 200, body: { id: IG_ACCOUNT, username: 'parley.shop', name: 'Parley Shop' } });
    const link = await t.client(created.key).call('linkChannel', { params: { channel: 'instagram' }, body: IG_LINK });
    assert.deepStrictEqual(link, { status: 200, data: { accountId: IG_ACCOUNT, username: 'parley.shop', linkedAt } });

    const sentAt = clock.advance(90_000);
    graph.on('POST', '/v26.0/me/messages', { status: 200, body: { recipient_id: IG_USER, message_id: SENT_MID } });
    const sent = await t.client(created.key).call('sendText', { body: { to: IG_USER, text: 'on time', provider: 'instagram' } });
    assert.equal(sent.status, 200, JSON.stringify(sent));
    assert.equal(sent.data.messageTimestamp, String(seconds(sentAt)));
    const stored = await t.client(created.key).call('getMessage', { params: { messageId: SENT_MID } });
    assert.equal(stored.data.messageTimestamp, String(seconds(sentAt)));
    const chats = await t.client(created.key).call('listChats');
    const chat = (chats.data as Array<{ id: string; timestamp: number }>).find((c) => c.id === IG_USER);
    assert.equal(chat?.timestamp, seconds(sentAt));
  });

  it('schedules a webhook retry on the clock: not due in real time, due once the clock reaches it', async () => {
    receiver.respond((request) => (receiver.requests.indexOf(request) === 0 ? { status: 503 } : { status: 200 }));
    const alice = await t.connectedSandbox({ name: 'alice', number: '5511900000001' });
    await t.client(alice.key).call('updateWebhookSettings', {
      body: { allowWebhook: true, webhookFormat: 'native', webhookMessage: '', webhookMessageFromMe: `${receiver.url}/alice` },
    });
    const firstAt = clock.advance(5_000);
    const sent = await t.client(alice.key).call('sendText', { body: { to: '5511900000002', text: 'retry me' } });
    assert.equal(sent.status, 200, JSON.stringify(sent));
    const first = await t.waitFor(() => receiver.requests[0], 5000, 'first attempt');
    assert.equal(first.headers['webhook-timestamp'], String(seconds(firstAt)));

    // Three sweeps wake the worker meanwhile; the retry is ten minutes away on the clock, so nothing is sent.
    await new Promise((r) => setTimeout(r, 3_000));
    assert.equal(receiver.requests.length, 1);
    const { totalSent, totalFailed, totalPending } = (await t.client(alice.key).call('webhookStatistics')).data;
    assert.deepEqual({ totalSent, totalFailed, totalPending }, { totalSent: 0, totalFailed: 1, totalPending: 1 });

    const dueAt = clock.advance(RETRY_MS);
    const second = await t.waitFor(() => receiver.requests[1], 5000, 'the retry');
    assert.equal(second.headers['webhook-id'], first.headers['webhook-id']);
    assert.equal(second.headers['webhook-timestamp'], String(seconds(dueAt)));
    assert.equal(second.body, first.body);
    await t.waitFor(async () => (await t.client(alice.key).call('webhookStatistics')).data.totalSent === 1, 5000, 'the retry counted sent');
  });
});
