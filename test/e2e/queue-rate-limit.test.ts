import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startMockGraph, type MockGraph } from '@parley/meta-graph/testing';
import { FakeClock } from '@parley/testkit';
import { IG_ACCOUNT, IG_LINK, IG_USER, startClockedInstagramServer } from '../support/social-server.js';
import type { TestServer } from '../support/test-server.js';
import { TEST_QUEUE } from '../support/queue.js';

const IG_OTHER = '6543210987654322';
const SEND = '/v26.0/me/messages';
const RATE_LIMITED = { status: 400, body: { error: { message: '(#613) Calls to this api have exceeded the rate limit.', type: 'OAuthException', code: 613 } } };
const TOO_MANY = { status: 429, body: { error: { message: 'Too many requests', type: 'OAuthException', code: 4 } } };
const ok = (mid: string, to = IG_USER) => ({ status: 200, body: { recipient_id: to, message_id: mid } });

/**
 * Issue 16: Meta's own rate limits (Graph code 613, HTTP 429) are honoured: the instance holds every
 * send back for a bounded, doubling time (2 s, 4 s, … at most 300 s, 8 attempts), then sends; a send
 * still refused after the last attempt fails for good (`ERROR`, a `failed` status).
 */
describe('outbound queue: Meta rate limits on a fake clock', () => {
  const clock = new FakeClock();
  let t: TestServer;
  let graph: MockGraph;
  let key: string;

  before(async () => {
    graph = await startMockGraph();
    t = await startClockedInstagramServer(clock, graph, { queue: TEST_QUEUE });
    key = (await t.createInstance({ name: 'ig-shop' })).key;
    graph.on('GET', `/v26.0/${IG_ACCOUNT}`, { status: 200, body: { id: IG_ACCOUNT, username: 'parley.shop', name: 'Parley Shop' } });
    assert.equal((await t.client(key).call('linkChannel', { params: { channel: 'instagram' }, body: IG_LINK })).status, 200);
  });
  after(async () => {
    await t.stop();
    await graph.close();
  });

  const sends = () => graph.requests.filter((r) => r.method === 'POST' && r.path === SEND);
  const send = (to: string, text: string) => t.request('POST', `/${key}/message/text`, { to, text, provider: 'instagram' });
  /** Lets the worker run (real time) without moving the clock, then asserts how many sends Meta got. */
  async function expectSends(count: number, what: string): Promise<void> {
    if (count > sends().length) await t.waitFor(() => sends().length >= count, 5000, what);
    else await new Promise((r) => setTimeout(r, 100));
    assert.equal(sends().length, count, what);
  }

  it('613: the send and every other send of the instance wait 2 s, then leave', async () => {
    graph.on('POST', SEND, RATE_LIMITED, ok('mid.first'), ok('mid.second', IG_OTHER));
    const first = await send(IG_USER, 'first');
    assert.equal(first.status, 200);
    assert.equal(first.body.data.status, 'PENDING');
    assert.deepEqual(first.body.data.queue, { state: 'scheduled', dueAt: new Date(clock.now() + 2_000).toISOString() });
    const second = await send(IG_OTHER, 'second');
    assert.equal(second.body.data.status, 'PENDING');
    assert.ok(second.body.data.queue, 'the instance is held back: the other recipient waits too');
    await expectSends(1, 'nothing more before the backoff ends');
    clock.advance(1_999);
    await expectSends(1, 'still nothing 1 ms before');
    clock.advance(1);
    await expectSends(3, 'both leave after 2 s');
    assert.deepEqual(sends().slice(1).map((r) => (r.json as { message: { text: string } }).message.text), ['first', 'second']);
    const stored = await t.request('GET', `/${key}/message/mid.first`);
    assert.equal(stored.status, 200);
    assert.equal((await t.request('GET', `/${key}/queue`)).body.total, 0);
  });

  it('429 on every attempt: 2, 4, 8 … 128 s apart, 8 attempts, then ERROR and a failed status', async () => {
    graph.on('POST', SEND, TOO_MANY);
    const base = sends().length;
    const res = await send(IG_USER, 'never accepted');
    const id = res.body.data.key.id;
    await expectSends(base + 1, 'the first attempt');
    for (let attempt = 1; attempt < 8; attempt++) {
      const wait = 2_000 * 2 ** (attempt - 1);
      // The failed attempt is answered and its retry placed before the clock moves on.
      const retry = await t.waitFor(async () => {
        const r = await t.request('GET', `/${key}/message/${id}`);
        return r.body.data?.queue?.state === 'scheduled' ? Date.parse(r.body.data.queue.dueAt) : undefined;
      }, 5000, `the retry after attempt ${attempt} to be placed`);
      assert.equal(retry, clock.now() + wait, `attempt ${attempt + 1} is due ${wait} ms after attempt ${attempt}`);
      clock.advance(wait - 1);
      await expectSends(base + attempt, `no attempt ${attempt + 1} before ${wait} ms`);
      clock.advance(1);
      await expectSends(base + attempt + 1, `attempt ${attempt + 1} after ${wait} ms`);
    }
    const failed = await t.waitFor(async () => {
      const r = await t.request('GET', `/${key}/message/${id}`);
      return r.body.data?.status === 'ERROR' ? r.body.data : undefined;
    }, 5000, 'the send to fail for good');
    assert.equal(failed.queue, undefined);
    // The record is written before its event reaches subscribers: wait for the event as well.
    const event = await t.waitFor(() => t.events.find((e) => e.type === 'message.status' && e.messageId === id), 5000, 'the failed status event');
    assert.equal(event.type === 'message.status' && event.status, 'failed');
    clock.advance(600_000);
    await expectSends(base + 8, 'no attempt after the last');
  });
});
