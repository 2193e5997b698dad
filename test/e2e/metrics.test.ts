import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHttpReceiver, type HttpReceiver } from '@parley/testkit';
import { expectError } from '../support/api-assertions.js';
import { deliverText, phone, type Phone } from '../support/conversation.js';
import { assertMetricsDocumented, Scrape } from '../support/metrics-scrape.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const METRICS_TOKEN = 'metrics-scraper-token-0123456789';

describe('GET /metrics (Prometheus)', () => {
  let t: TestServer;
  let receiver: HttpReceiver;
  let alice: Phone;
  let bob: Phone;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  async function scrape(token = METRICS_TOKEN): Promise<Scrape> {
    const res = await t.request('GET', '/metrics', undefined, bearer(token));
    const text = res.raw.toString('utf8');
    assert.equal(res.status, 200, text);
    assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    return Scrape.parse(text);
  }

  before(async () => {
    receiver = await startHttpReceiver();
    t = await startTestServer({
      config: {
        metrics: { token: METRICS_TOKEN }, rateLimit: { failures: 3, windowSeconds: 60, blockSeconds: 60 }, trustProxy: 'loopback',
        // Retries 1 s apart: the failure test walks one delivery through a refusal, a network error and a success.
        webhooks: { retry: { schedule: [1000, 1000, 1000], jitter: 0 } },
      },
    });
    alice = await phone(t, 'alice', '15550001001');
    bob = await phone(t, 'bob', '15550001002');
    await t.client(bob.key).call('updateWebhookSettings', {
      body: { allowWebhook: true, webhookFormat: 'native', webhookMessage: `${receiver.url}/bob` },
    });
  });
  after(async () => {
    await t.stop();
    await receiver.close();
  });

  it('counts sends, requests by route template, events by kind, storage calls and webhook deliveries by the exact amounts', async () => {
    await t.settle();
    const before = await scrape();
    const eventsBefore = t.events.length;
    const deliveredBefore = receiver.requests.length;

    await deliverText(t, alice, bob, 'one');
    await deliverText(t, alice, bob, 'two');
    await t.client(bob.key).call('sendText', { body: { to: alice.number, text: 'back' } });
    await t.settle();
    const webhooks = receiver.requests.length;
    // Every delivery the receiver acknowledged is counted (the count moves once the worker saw the 200).
    const after = await t.waitFor(async () => {
      const s = await scrape();
      return s.value('parley_webhook_deliveries_total', { format: 'native' }) - before.value('parley_webhook_deliveries_total', { format: 'native' })
        === receiver.requests.length - deliveredBefore && s;
    }, 5000, 'the delivery counter to match the receiver');
    assert.ok(webhooks - deliveredBefore >= 2, 'bob\'s two received messages went to the receiver');
    assert.ok(receiver.requests.every((r) => r.url === '/bob'));

    const moved = (name: string, labels: Record<string, string> = {}) => after.value(name, labels) - before.value(name, labels);
    const observed = (name: string, labels: Record<string, string>) => after.count(name, labels) - before.count(name, labels);
    assert.equal(moved('parley_messages_sent_total', { channel: 'whatsapp', type: 'text' }), 3);
    assert.equal(observed('parley_http_request_duration_seconds', { method: 'POST', route: '/:key/message/text', status: '200' }), 3);
    assert.equal(moved('parley_webhook_failures_total'), 0);
    assert.equal(observed('parley_webhook_attempt_duration_seconds', { format: 'native', outcome: 'delivered' }), receiver.requests.length - deliveredBefore);
    // Events by kind: exactly what the bus processed meanwhile (the test server taps the same bus).
    const kinds = new Map<string, number>();
    for (const e of t.events.slice(eventsBefore)) kinds.set(e.type, (kinds.get(e.type) ?? 0) + 1);
    assert.ok((kinds.get('message') ?? 0) >= 3, JSON.stringify([...kinds]));
    for (const [kind, n] of kinds) assert.equal(moved('parley_events_total', { kind }), n, kind);
    assert.equal(moved('parley_events_total'), t.events.length - eventsBefore);
    // Each stored message went through the timed repository.
    assert.ok(observed('parley_storage_operation_duration_seconds', { repository: 'messages', operation: 'upsert' }) >= 6);
  });

  it('reports instances by channel and state, pending deliveries, and the process metrics (event-loop lag)', async () => {
    await t.createInstance({ channel: 'sandbox', number: '15550001003' });
    // The deliveries of the test before are acknowledged (the queue empties just after the counters move).
    const s = await t.waitFor(async () => {
      const now = await scrape();
      return now.value('parley_webhook_deliveries_pending') === 0 && now;
    }, 5000, 'the queue to be empty');
    assert.equal(s.value('parley_instances'), 3);
    assert.equal(s.value('parley_instances', { channel: 'sandbox', state: 'open' }), 2, JSON.stringify(s.samples('parley_instances')));
    assert.equal(s.value('parley_instances', { channel: 'sandbox', state: 'open' }) + s.value('parley_instances', { channel: 'sandbox', state: 'unloaded' })
      + s.value('parley_instances', { channel: 'sandbox', state: 'disconnected' }), 3);
    for (const name of ['nodejs_eventloop_lag_seconds', 'process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes']) {
      assert.ok(s.family(name).data.length > 0, name);
    }
  });

  it('counts failed webhook attempts by format (refused, network error), shows the retried delivery as pending, then delivered', async () => {
    const before = await scrape();
    const moved = (s: Scrape, name: string, labels: Record<string, string> = {}) => s.value(name, labels) - before.value(name, labels);
    const attempts = (s: Scrape, outcome: string) => s.count('parley_webhook_attempt_duration_seconds', { format: 'native', outcome })
      - before.count('parley_webhook_attempt_duration_seconds', { format: 'native', outcome });
    const failuresReach = (n: number) => t.waitFor(async () => {
      const s = await scrape();
      return moved(s, 'parley_webhook_failures_total', { format: 'native' }) === n && s;
    }, 10_000, `${n} failed attempts to be counted`);
    const seen = receiver.requests.length;
    receiver.respond({ status: 503 });
    await t.client(alice.key).call('sendText', { body: { to: bob.number, text: 'refused' } });
    await receiver.waitFor(seen + 1);
    let s = await failuresReach(1);
    assert.equal(attempts(s, 'failed'), 1);
    assert.equal(moved(s, 'parley_webhook_deliveries_total'), 0);
    assert.equal(s.value('parley_webhook_deliveries_pending'), 1);

    // The retry meets a dropped connection: a second failed attempt of the same delivery.
    receiver.respond({ destroy: true });
    await receiver.waitFor(seen + 2, 10_000);
    s = await failuresReach(2);
    assert.equal(attempts(s, 'failed'), 2);
    assert.equal(s.value('parley_webhook_deliveries_pending'), 1);

    receiver.respond({});
    s = await t.waitFor(async () => {
      const now = await scrape();
      // The observer hears of the 2xx just before the queue acknowledges it: wait for both.
      return moved(now, 'parley_webhook_deliveries_total', { format: 'native' }) === 1 && now.value('parley_webhook_deliveries_pending') === 0 && now;
    }, 10_000, 'the third attempt to be delivered and acknowledged');
    assert.equal(receiver.requests.length, seen + 3);
    assert.equal(attempts(s, 'delivered'), 1);
    assert.equal(moved(s, 'parley_webhook_failures_total'), 2);
  });

  it('accepts the admin token too, and never shows an instance key or secret', async () => {
    const s = await scrape(t.adminToken);
    assert.ok(s.families.size > 20);
    const admin = (await t.admin('GET', '/admin/instances')).body.data as { key: string; webhookSecret: string }[];
    assert.equal(admin.length, 3);
    for (const secret of [...admin.flatMap((i) => [i.key, i.webhookSecret]), t.adminToken, METRICS_TOKEN]) {
      assert.ok(!s.text.includes(secret), 'a secret appears in the scrape');
    }
    // Request metrics name route templates only.
    const routes = new Set(s.samples('parley_http_request_duration_seconds').map((m) => m.labels.route!));
    assert.ok(routes.has('/:key/message/text') && routes.has('/metrics'), [...routes].join());
    for (const route of routes) assert.ok(route === 'unmatched' || route.startsWith('/'), route);
  });

  it('has no cluster metric on a single server (docs/cluster.md: no cluster code runs)', async () => {
    const s = await scrape();
    assert.deepEqual([...s.families.keys()].filter((name) => name.startsWith('parley_cluster_')), []);
    assert.ok(!s.text.includes('parley_cluster_'));
  });

  it('exposes no parley_ metric that docs/rest-api.md does not describe', async () => {
    assertMetricsDocumented(await scrape());
  });

  it('answers 401 with no metric data to a missing or wrong token, and counts it as a failed authentication', async () => {
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    const cases: [Record<string, string>, string][] = [
      [{}, 'metrics token or admin token required: Authorization: Bearer <token>'],
      [bearer('wrong-metrics-token-0123456789'), 'invalid metrics token'],
      [bearer(alice.key), 'invalid metrics token'],
      [{ authorization: METRICS_TOKEN }, 'metrics token or admin token required: Authorization: Bearer <token>'],
    ];
    for (const [i, [headers, message]] of cases.entries()) {
      const res = await t.request('GET', '/metrics', undefined, { ...headers, ...from(`203.0.113.${i + 1}`) });
      expectError(res, 401, 'unauthorized', message);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      const body = res.raw.toString('utf8');
      assert.ok(!body.includes('parley_') && !body.includes('process_'), body);
    }
    // The failure limiter counts them like bad admin tokens: the 4th failure from one address is refused with 429.
    const me = from('203.0.113.50');
    for (let i = 0; i < 3; i++) expectError(await t.request('GET', '/metrics', undefined, { ...me, ...bearer('nope-nope-nope-nope') }), 401, 'unauthorized');
    const limited = await t.request('GET', '/metrics', undefined, { ...me, ...bearer('nope-nope-nope-nope') });
    expectError(limited, 429, 'rate_limited');
    assert.ok(!limited.raw.toString('utf8').includes('parley_'));
  });
});
