import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { serviceUrlOrSkip } from '@parley/testkit';
import { arrivals, SinkBrokers } from '../support/sink-brokers.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const amqpUrl = serviceUrlOrSkip('AMQP_URL', 'e2e event sinks resume (RabbitMQ)');
const natsUrl = serviceUrlOrSkip('NATS_URL', 'e2e event sinks resume (NATS JetStream)');
/** A first retry a minute away: without the resume on reconnect, nothing would go out again within the test's bound. */
const RETRY = { schedule: [60_000, 120_000, 300_000], jitter: 0 };
/** How long the backlog may take once the brokers are back: far below the first retry. */
const RESUME_BOUND_MS = 15_000;
const NUMBERS = { alice: '5511975000001', bob: '5511975000002' } as const;

if (amqpUrl && natsUrl) {
  describe('event sinks resume as soon as the broker is back, not at the next retry', () => {
    let t: TestServer;
    const brokers = new SinkBrokers(amqpUrl, natsUrl);
    const phones = {} as Record<keyof typeof NUMBERS, { id: string; key: string }>;

    before(async () => {
      await brokers.start();
      t = await startTestServer({ storage: 'sqlite', config: { webhooks: { retry: RETRY } }, extraPlugins: brokers.plugins() });
      for (const name of Object.keys(NUMBERS) as (keyof typeof NUMBERS)[]) {
        phones[name] = await t.createInstance({ channel: 'sandbox', name, number: NUMBERS[name] });
        const api = t.client(phones[name].key);
        for (const sink of ['amqp', 'nats'] as const) await api.call('updateSinkSettings', { params: { name: sink }, body: { enabled: true, format: 'native', events: ['message'] } });
        await api.call('connectInstance');
        await api.call('sandbox_post_key_scan');
      }
      await t.settle();
    });
    after(async () => {
      await t?.stop();
      await brokers.close();
    });

    it('a burst cut by an outage (resets, then silence) arrives within the bound after the restore: nothing lost, in order', async () => {
      const alice = t.client(phones.alice.key);
      const stats = (sink: string) => alice.call('sinkStatistics', { params: { name: sink } }).then((r) => r.data);
      const burst = (async () => {
        for (let i = 0; i < 40; i++) {
          await alice.call('sendText', { body: { to: NUMBERS.bob, text: `resume ${i}` } });
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      await new Promise((r) => setTimeout(r, 200));
      await brokers.outage(500, 1_500);
      const restored = performance.now();
      await burst;
      await t.settle();
      const pending = async () => (await stats('amqp')).totalPending + (await stats('nats')).totalPending;
      await t.waitFor(async () => (await pending()) === 0, RESUME_BOUND_MS, `the backlog published within ${RESUME_BOUND_MS} ms of the restore`);
      const took = performance.now() - restored;
      // The outage did postpone deliveries (failed attempts, each rescheduled a minute away), and they went out long before that.
      const failed = (await stats('amqp')).totalFailed + (await stats('nats')).totalFailed;
      assert.ok(failed > 0, 'the outage made attempts fail');
      assert.ok(took < RETRY.schedule[0]!, `drained ${Math.round(took)} ms after the restore`);
      const sent = t.events.filter((e) => e.instance === phones.alice.id && e.type === 'message').map((e) => e.id);
      assert.ok(sent.length >= 40, `${sent.length} message events`);
      for (const sink of ['amqp', 'nats'] as const) {
        const { ids } = arrivals((sink === 'amqp' ? brokers.amqp : brokers.nats).messages(), phones.alice.id);
        assert.deepEqual(ids, sent, `${sink}: every message, in order`);
        const s = await stats(sink);
        assert.equal(s.totalSent, sent.length, `${sink}: one acknowledged publish per event`);
      }
      for (const sink of ['amqp', 'nats']) assert.equal((await alice.call('sinkDeadLetters', { params: { name: sink } })).total, 0);
    });
  });
}
