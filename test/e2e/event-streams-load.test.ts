import assert from 'node:assert/strict';
import { Agent } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { phone, type Phone } from '../support/conversation.js';
import { handledAfter, sendTexts } from '../support/event-streams.js';
import { SseClient } from '../support/sse-client.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const CLIENTS = 1000;
const BUFFER_BYTES = 64 * 1024;

/** The value of one series in a Prometheus text scrape (0 when absent). */
function series(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

describe('event streams under load: 1,000 clients, limits, slow clients, heartbeats', () => {
  let t: TestServer;
  let alice: Phone;
  let bob: Phone;
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const scrape = async () => (await t.request('GET', '/metrics', undefined, { Authorization: `Bearer ${t.adminToken}` })).body as string;
  before(async () => {
    t = await startTestServer({
      storage: 'sqlite', captureLogs: true,
      config: { streams: { retentionSeconds: 86_400, heartbeatSeconds: 1, maxPerInstance: CLIENTS, maxTotal: CLIENTS + 1, bufferBytes: BUFFER_BYTES } },
    });
    alice = await phone(t, 'alice', '5511900000021');
    bob = await phone(t, 'bob', '5511900000022');
  });
  after(async () => {
    agent.destroy();
    await t.stop();
  });

  it(`fans every event out to ${CLIENTS} concurrent SSE clients of one instance, in order; the limits answer 429`, async () => {
    const mark = t.events.at(-1)!.id;
    const clients = Array.from({ length: CLIENTS }, () => new SseClient(`${t.url}/${bob.key}/events`, {}, { agent }));
    await Promise.all(clients.map((c) => c.opened));
    assert.ok(clients.every((c) => c.status === 200));
    await t.waitFor(() => t.server.context.streams.count(bob.id) === CLIENTS, 10_000, 'every stream registered');

    const over = new SseClient(`${t.url}/${bob.key}/events`, {}, { agent });
    await over.closed;
    assert.equal(over.status, 429);
    assert.equal(JSON.parse(over.body).error.code, 'too_many_streams');
    assert.match(JSON.parse(over.body).error.message, /streams\.maxPerInstance/);
    const admin = new SseClient(`${t.url}/admin/events`, { Authorization: `Bearer ${t.adminToken}` }, { agent });
    await admin.opened;
    assert.equal(admin.status, 200, 'the last place of the total');
    const overTotal = new SseClient(`${t.url}/${alice.key}/events`, {}, { agent });
    await overTotal.closed;
    assert.equal(overTotal.status, 429);
    assert.match(JSON.parse(overTotal.body).error.message, /streams\.maxTotal/);

    await sendTexts(t, alice, bob, Array.from({ length: 10 }, (_, i) => `fan-out ${i}`));
    const expected = handledAfter(t, bob.id, mark);
    assert.ok(expected.length >= 10);
    await t.waitFor(() => clients.every((c) => c.events.length === expected.length), 20_000, 'every client to get every event');
    for (const c of clients) assert.deepEqual(c.events.map((f) => f.id), expected);

    const text = await scrape();
    assert.equal(series(text, 'parley_event_streams_open'), CLIENTS + 1);
    assert.equal(series(text, 'parley_event_stream_refusals_total{limit="instance"}'), 1);
    assert.equal(series(text, 'parley_event_stream_refusals_total{limit="total"}'), 1);
    for (const c of [...clients, admin]) c.close();
    await t.waitFor(() => t.server.context.streams.count() === 0, 10_000, 'every stream released');
  });

  it('sends SSE heartbeat comments every interval', async () => {
    const client = new SseClient(`${t.url}/${bob.key}/events`, {}, { agent });
    await client.opened;
    await t.waitFor(() => client.comments.filter((c) => c === ': heartbeat').length >= 2, 5000, 'two heartbeats');
    client.close();
  });

  it('cuts off a client that stops reading, logs and counts it, and keeps serving the others', async () => {
    const mark = t.events.at(-1)!.id;
    const stalled = new SseClient(`${t.url}/${bob.key}/events`, {}, { agent, paused: true });
    const reader = new SseClient(`${t.url}/${bob.key}/events`, {}, { agent });
    await Promise.all([stalled.opened, reader.opened]);
    // 60 KB texts until the stalled client's socket buffers are full and its unread bytes pass the limit.
    const big = 'x'.repeat(60_000);
    let sent = 0;
    while (t.server.context.streams.count(bob.id) === 2 && sent < 400) {
      await sendTexts(t, alice, bob, [`${sent++} ${big}`]);
    }
    await t.waitFor(() => t.server.context.streams.count(bob.id) === 1, 5000, 'the stalled client to be cut off');
    assert.ok(sent < 400, 'cut off within the bounded loop');
    const text = await scrape();
    assert.equal(series(text, 'parley_event_stream_drops_total{reason="slow"}'), 1);
    const line = t.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'event stream client cut off');
    assert.ok(line, 'the cut-off is logged');
    assert.equal(line.reason, 'slow');
    // Memory stays bounded: at the cut the unread bytes were the limit plus at most one event.
    assert.ok(line.buffered <= BUFFER_BYTES + 70_000, `buffered ${line.buffered}`);
    assert.ok(!JSON.stringify(line).includes(bob.key), 'no instance key in the log');
    await t.waitFor(() => reader.events.length === handledAfter(t, bob.id, mark).length, 10_000, 'the reading client to get everything');
    assert.deepEqual(reader.events.map((f) => f.id), handledAfter(t, bob.id, mark));
    stalled.close();
    reader.close();
  });

  it('graceful shutdown ends open SSE streams', async () => {
    const client = new SseClient(`${t.url}/${bob.key}/events`, {}, { agent });
    await client.opened;
    await t.stop();
    await client.closed;
    assert.ok(client.ended);
  });
});
