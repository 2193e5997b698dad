import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ParleyApiError } from '@parley/client';
import { serviceUrlOrSkip, type ReceivedRequest } from '@parley/testkit';
import { sinkPartition } from '@parley/webhooks';
import { dataUri, SAMPLES } from '../support/media-server.js';
import { arrivals, SinkBrokers, type BrokerMessage } from '../support/sink-brokers.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const amqpUrl = serviceUrlOrSkip('AMQP_URL', 'e2e event sinks (RabbitMQ)');
const natsUrl = serviceUrlOrSkip('NATS_URL', 'e2e event sinks (NATS JetStream)');
const WEBHOOKS = { retry: { schedule: [200, 400, 800, 1_600, 3_200, 5_000, 5_000, 5_000, 5_000, 5_000], jitter: 0 }, housekeeping: { sweepCron: '* * * * * *' } };
const NUMBERS = { alice: '5511974000001', bob: '5511974000002', carol: '5511974000003' } as const;
type Name = keyof typeof NUMBERS;

/** The format of a webhook body: native bodies carry `id`, meta bodies `object`. */
const formatOf = (r: ReceivedRequest) => ((r.json as { object?: string }).object === undefined ? 'native' : 'meta');
/** The event id of a webhook body (native: `id`; meta: the delivery id `msg_<event id>_<hash>`). */
const eventIdOf = (r: ReceivedRequest) => String(r.headers['webhook-id']).split('_')[1]!;

if (amqpUrl && natsUrl) {
  describe('event sinks end to end: every event kind, once per id, in order, in the chosen format; through an outage', () => {
    let t: TestServer;
    const phones = {} as Record<Name, { id: string; key: string }>;
    const brokers = new SinkBrokers(amqpUrl, natsUrl);
    /** Sink settings of each instance: the format each sink publishes it in. */
    const formats: Record<Name, { amqp: string; nats: string }> = { alice: { amqp: 'native', nats: 'meta' }, bob: { amqp: 'meta', nats: 'native' }, carol: { amqp: 'native', nats: 'native' } };

    /** The webhook bodies of one instance in one format, in lane order, first arrival of each event. */
    const webhookBodies = (name: Name, format: string) => {
      const seen = new Map<string, string>();
      for (const r of t.host.receiver.requests) if (r.url === `/${name}` && formatOf(r) === format && !seen.has(eventIdOf(r))) seen.set(eventIdOf(r), r.body);
      return seen;
    };
    const published = (sink: 'amqp' | 'nats') => (sink === 'amqp' ? brokers.amqp : brokers.nats).messages();
    const stats = (name: Name, sink: string) => t.client(phones[name].key).call('sinkStatistics', { params: { name: sink } }).then((r) => r.data);
    /** What {@link drained} last found pending (named in its time-out). */
    let pending = '';
    const drained = async () => {
      for (const name of Object.keys(NUMBERS) as Name[]) {
        for (const sink of ['amqp', 'nats']) {
          const s = await stats(name, sink);
          pending = `${name}'s ${sink} sink: ${JSON.stringify(s)}`;
          if (s.totalPending > 0) return false;
        }
        // The webhooks are the reference the sinks are compared with: they must be drained too.
        const webhooks = (await t.client(phones[name].key).call('webhookStatistics')).data;
        pending = `${name}'s webhooks: ${JSON.stringify(webhooks)}`;
        if (webhooks.totalPending > 0) return false;
      }
      pending = 'no webhook request received yet';
      return t.host.receiver.requests.length > 0;
    };
    const untilDrained = (timeoutMs: number, what: string) => t.waitFor(drained, timeoutMs, what).catch(async (err: Error) => {
      const ready = await fetch(`${t.url}/readyz`).then((r) => r.text(), (e: Error) => e.message);
      throw new Error(`${err.message}; last seen pending: ${pending}; /readyz: ${ready}`);
    });

    /** Each sink got exactly the events the instance's webhook got in that format: once per id, in order, the same body. */
    const assertMirrorsWebhooks = (name: Name, sink: 'amqp' | 'nats', events: readonly string[] | null, messages: BrokerMessage[]) => {
      const expected = webhookBodies(name, formats[name][sink]);
      const mine = messages.filter((m) => m.topic.startsWith(`${phones[name].id}.`));
      const { ids, copies } = arrivals(messages, phones[name].id);
      const wanted = [...expected.keys()].filter((id) => events === null || events.includes(t.events.find((e) => e.id === id)!.type));
      assert.deepEqual(ids, wanted, `${name} on ${sink}: the events, in order`);
      if (sink === 'nats') assert.ok([...copies.values()].every((n) => n === 1), 'JetStream stores each id once');
      for (const m of mine) {
        assert.equal(m.body, expected.get(m.id), `${name} on ${sink}: ${m.id} is the ${formats[name][sink]} body`);
        const event = t.events.find((e) => e.id === m.id)!;
        assert.equal(m.topic.split('.').slice(1).join('.').split('.')[1], event.type.replace('.', '-'), 'the topic names the event kind');
      }
      return ids.length;
    };

    before(async () => {
      await brokers.start();
      t = await startTestServer({ storage: 'sqlite', config: { webhooks: WEBHOOKS }, extraPlugins: brokers.plugins() });
      // Created, not connected yet: the sinks are enabled before the first event (the QR code).
      for (const name of Object.keys(NUMBERS) as Name[]) phones[name] = await t.createInstance({ channel: 'sandbox', name, number: NUMBERS[name] });
    });
    after(async () => {
      await t?.stop();
      await brokers.close();
    });

    it('lists the configured sinks, not enabled, with their health', async () => {
      // The sinks connect in the background once the server listens.
      const list = await t.waitFor(async () => {
        const answer = await t.client(phones.alice.key).call('listSinks');
        return answer.data.every((s) => s.health.ready) && answer;
      }, 10_000, 'both sinks connected');
      assert.deepEqual(list.data.map((s) => [s.name, s.enabled, s.format, s.events, s.health.ready]), [['amqp', false, 'native', null, true], ['nats', false, 'native', null, true]]);
    });

    it('refuses bad settings with a 400 naming the field, and changes nothing', async () => {
      const api = t.client(phones.alice.key);
      const bad = async (name: string, body: unknown, field: RegExp, status = 400) => {
        const error = await api.call('updateSinkSettings', { params: { name }, body: body as never }).then(() => null, (e: unknown) => e as ParleyApiError);
        assert.ok(error instanceof ParleyApiError, `${JSON.stringify(body)} is refused`);
        assert.equal(error.status, status);
        assert.match(error.message, field);
      };
      await bad('amqp', { enabled: 'yes', format: 'native' }, /body\.enabled/);
      await bad('amqp', { format: 'native' }, /enabled/);
      await bad('amqp', { enabled: true, format: 'xml' }, /body\.format must be one of cloud-api, meta, native/);
      await bad('amqp', { enabled: true, format: 'native', events: ['message', 'nope'] }, /body\.events\/1|body\.events\[1\]/);
      await bad('amqp', { enabled: true, format: 'native', extra: 1 }, /extra/);
      await bad('kafka', { enabled: true, format: 'native' }, /sink "kafka" not found/, 404);
      const unknownKey = await fetch(`${t.url}/not-a-key/instance/sinks/amqp`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"enabled":true,"format":"native"}' });
      assert.equal(unknownKey.status, 404, 'an unknown key is refused as on every instance route');
      assert.ok((await api.call('listSinks')).data.every((s) => !s.enabled), 'nothing changed');
    });

    it('publishes every event kind once per id, in order per instance, in the chosen format', async () => {
      for (const name of Object.keys(NUMBERS) as Name[]) {
        const api = t.client(phones[name].key);
        await api.call('updateWebhookSettings', { body: { allowWebhook: true, webhookFormat: 'both', webhookMessage: `${t.host.receiver.url}/${name}` } });
        const events = name === 'carol' ? ['message'] as const : null;
        for (const sink of ['amqp', 'nats'] as const) {
          const put = await api.call('updateSinkSettings', { params: { name: sink }, body: { enabled: true, format: formats[name][sink], ...(events ? { events: [...events] } : {}) } });
          assert.deepEqual({ ...put.data, health: undefined }, { name: sink, enabled: true, format: formats[name][sink], events: events ? [...events] : null, health: undefined });
        }
      }
      // qrcode, then connection open, for every instance.
      for (const name of Object.keys(NUMBERS) as Name[]) {
        await t.client(phones[name].key).call('connectInstance');
        await t.client(phones[name].key).call('sandbox_post_key_scan');
      }
      await t.settle();
      const bob = t.client(phones.bob.key);
      const alice = t.client(phones.alice.key);
      const hello = (await alice.call('sendText', { body: { to: NUMBERS.bob, text: 'hello bob' } })).data.key.id;
      await t.waitFor(() => t.events.some((e) => e.instance === phones.bob.id && e.type === 'message'), 5_000, 'bob got the message');
      await bob.call('sendText', { body: { to: NUMBERS.alice, text: 'hi alice' } });
      await bob.call('sendBase64Image', { body: { to: NUMBERS.alice, base64: dataUri('image/png', SAMPLES.png), caption: 'a cat' } });
      await bob.call('sendLocation', { body: { to: NUMBERS.alice, location: { latitude: -23.5613, longitude: -46.6565, address: 'Av. Paulista' } } });
      await bob.call('replyText', { params: { messageId: hello }, body: { to: NUMBERS.alice, text: 'a reply' } });
      await bob.call('sendReaction', { body: { msgId: hello, text: '👍' } });
      await alice.call('updateChat', { params: { jid: NUMBERS.bob }, query: { action: 'markRead', value: true } });
      await bob.call('sendPresence', { body: { to: NUMBERS.alice, status: 'composing' } });
      await bob.call('placeCall', { body: { to: NUMBERS.alice } });
      await t.waitFor(() => t.events.some((e) => e.instance === phones.alice.id && e.type === 'call'), 5_000, 'the call offer');
      const group = await alice.call('createGroup', { body: { name: 'Team', participants: [NUMBERS.bob, NUMBERS.carol] } });
      await t.waitFor(() => t.events.some((e) => e.instance === phones.carol.id && e.type === 'group.update'), 5_000, 'the group on carol');
      await bob.call('sendText', { body: { to: group.data.id, text: 'hello team' } });
      await bob.call('sendText', { body: { to: NUMBERS.carol, text: 'hi carol' } });
      await t.client(phones.carol.key).call('sendText', { body: { to: NUMBERS.bob, text: 'hi bob' } });
      await alice.call('restartInstance');
      await t.client(phones.carol.key).call('logoutInstance');
      await t.settle();
      await untilDrained(15_000, 'every sink delivery published');
      let total = 0;
      for (const name of Object.keys(NUMBERS) as Name[]) {
        for (const sink of ['amqp', 'nats'] as const) total += assertMirrorsWebhooks(name, sink, name === 'carol' ? ['message'] : null, published(sink));
      }
      const kinds = new Set(published('nats').map((m) => m.topic.split('.')[2]));
      const driven = ['qrcode', 'connection', 'message', 'message-status', 'presence', 'call', 'group-participants', 'group-update'];
      for (const kind of driven) assert.ok(kinds.has(kind), `${kind} was published (${[...kinds].join()})`);
      // Everything the bus carried for alice and bob in the native format went to their native sinks (the webhooks agree, above).
      const nativeKinds = new Set(t.events.filter((e) => e.instance === phones.bob.id).map((e) => e.type.replace('.', '-')));
      assert.deepEqual(new Set(arrivals(published('nats'), phones.bob.id).ids.map((id) => published('nats').find((m) => m.id === id)!.topic.split('.')[2])), nativeKinds);
      assert.ok(total > 30, `${total} events published`);
      const s = await stats('alice', 'amqp');
      assert.equal(s.totalPending, 0);
      assert.equal(s.totalSent, arrivals(published('amqp'), phones.alice.id).ids.length, 'one acknowledged publish per event');
    });

    it('loses nothing and keeps order through a broker outage mid-burst (resets, then silence, then restored)', async () => {
      const alice = t.client(phones.alice.key);
      const burst = (async () => {
        for (let i = 0; i < 40; i++) {
          await alice.call('sendText', { body: { to: NUMBERS.bob, text: `burst ${i}` } });
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      await new Promise((r) => setTimeout(r, 200));
      const outage = brokers.outage(500, 1_500);
      await new Promise((r) => setTimeout(r, 1_000));
      const pendingNow = (await t.admin('GET', '/metrics')).body as string;
      assert.match(pendingNow, /^parley_sink_events_pending\{sink="amqp"\} [1-9]\d*$/m, 'the metrics show the events waiting for the broker');
      await outage;
      await burst;
      await t.settle();
      await untilDrained(30_000, 'the backlog published after the outage');
      for (const name of ['alice', 'bob'] as const) {
        for (const sink of ['amqp', 'nats'] as const) assertMirrorsWebhooks(name, sink, null, published(sink));
      }
      const dead = await alice.call('sinkDeadLetters', { params: { name: 'amqp' } });
      assert.equal(dead.total, 0);
      assert.match((await t.admin('GET', '/metrics')).body as string, /^parley_sink_events_pending\{sink="nats"\} 0$/m);
      const ready = await fetch(`${t.url}/readyz`).then((r) => r.json() as Promise<{ data: { sinks: Record<string, { ready: boolean }> } }>);
      assert.deepEqual(ready.data.sinks, { amqp: { ready: true }, nats: { ready: true } });
    });
  });

  describe('event sinks: a broker unreachable at start-up, dead letters and redelivery', () => {
    let t: TestServer;
    const brokers = new SinkBrokers(amqpUrl, natsUrl);
    before(async () => {
      // Ports chosen, nothing listening yet: both brokers are unreachable when the server starts.
      await brokers.amqpProxy.start();
      await brokers.natsProxy.start();
      await brokers.amqpProxy.cut();
      await brokers.natsProxy.cut();
      await brokers.start(false);
      t = await startTestServer({
        storage: 'memory', config: { webhooks: { retry: { schedule: [50, 50], jitter: 0 }, housekeeping: { sweepCron: '* * * * * *' } } },
        extraPlugins: brokers.plugins(),
      });
    });
    after(async () => {
      await t?.stop();
      await brokers.close();
    });

    it('boots, stays ready and reports the sinks not ready with the reason', async () => {
      const res = await fetch(`${t.url}/readyz`);
      assert.equal(res.status, 200);
      const body = await res.json() as { data: { sinks: Record<string, { ready: boolean; detail?: string }> } };
      assert.equal(body.data.sinks.amqp!.ready, false);
      assert.match(body.data.sinks.amqp!.detail ?? '', /cannot reach amqp:\/\/127\.0\.0\.1:\d+/);
      assert.doesNotMatch(body.data.sinks.amqp!.detail ?? '', /guest/, 'no credentials');
      assert.equal(body.data.sinks.nats!.ready, false);
    });

    it('dead-letters after the schedule, then redelivers through the API once the broker is back', async () => {
      const created = await t.connectedSandbox({ name: 'dl', number: '5511974000009' });
      const api = t.client(created.key);
      await api.call('updateSinkSettings', { params: { name: 'amqp' }, body: { enabled: true, format: 'native' } });
      await api.call('sendText', { body: { to: '5511974000008', text: 'into the void' } });
      await t.settle();
      // Nothing pending first, then the page: every event of the send is dead by the time it is read.
      const dead = await t.waitFor(async () => {
        if ((await api.call('sinkStatistics', { params: { name: 'amqp' } })).data.totalPending > 0) return false;
        const page = await api.call('sinkDeadLetters', { params: { name: 'amqp' } });
        return page.total > 0 && page;
      }, 15_000, 'dead letters');
      assert.equal(dead.data[0]!.url, 'sink:amqp');
      assert.equal(dead.data[0]!.attempts, 3);
      const before = await api.call('sinkStatistics', { params: { name: 'amqp' } });
      assert.equal(before.data.totalFailed, 3 * dead.total);
      await brokers.amqpProxy.restore();
      const redelivered = await api.call('sinkRedeliver', { params: { name: 'amqp' }, body: {} });
      assert.equal(redelivered.data.redelivered, dead.total);
      await t.waitFor(() => arrivals(brokers.amqp.messages(), created.id).ids.length === dead.total, 15_000, 'redelivered events published');
      assert.deepEqual(arrivals(brokers.amqp.messages(), created.id).ids, dead.data.map((d) => d.eventId));
      // The broker has them before the worker books them sent (the booking follows the broker's confirm).
      const afterwards = await t.waitFor(async () => {
        const stats = await api.call('sinkStatistics', { params: { name: 'amqp' } });
        return stats.data.totalSent === dead.total && stats.data.totalPending === 0 && stats;
      }, 15_000, 'the redelivered events booked sent');
      assert.equal(afterwards.data.totalFailed, 3 * dead.total, 'the redelivery counted no failed attempt');
      assert.equal((await api.call('sinkDeadLetters', { params: { name: 'amqp' } })).total, 0);
    });

    it('deleting the instance deletes its sink events, dead letters and counters', async () => {
      const created = await t.connectedSandbox({ name: 'gone', number: '5511974000007' });
      const api = t.client(created.key);
      await brokers.amqpProxy.cut();
      await api.call('updateSinkSettings', { params: { name: 'amqp' }, body: { enabled: true, format: 'native' } });
      await api.call('sendText', { body: { to: '5511974000008', text: 'soon gone' } });
      await t.settle();
      const queue = t.server.context.storage.deliveries;
      const partition = sinkPartition(created.id, 'amqp');
      await t.waitFor(async () => (await queue.deadLetters(partition, { limit: 1, offset: 0 })).total > 0, 15_000, 'a dead letter');
      await t.client().call('adminDeleteInstance', { params: { key: created.key } });
      assert.deepEqual(await queue.stats(partition), { totalSent: 0, totalFailed: 0, totalPending: 0, avgResponseTime: 0 });
      assert.equal((await queue.deadLetters(partition, { limit: 1, offset: 0 })).total, 0);
    });
  });
}
