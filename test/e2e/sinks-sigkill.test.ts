import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { serviceUrlOrSkip } from '@parley/testkit';
import { ServerChild } from '../support/server-child.js';
import { arrivals, SinkBrokers, type BrokerMessage } from '../support/sink-brokers.js';

const amqpUrl = serviceUrlOrSkip('AMQP_URL', 'e2e event sinks under SIGKILL (RabbitMQ)');
const natsUrl = serviceUrlOrSkip('NATS_URL', 'e2e event sinks under SIGKILL (NATS JetStream)');
const CONFIG = { webhooks: { timeoutMs: 1_000, leaseMs: 2_500, retry: { schedule: [100, 200, 400, 800, 1_600, 3_200], jitter: 0 }, housekeeping: { sweepCron: '* * * * * *' } } };
const A = '5511975000001';
const B = '5511975000002';
const BEFORE_HOLD = 40;
const HELD = 20;

/** The message ids of `a`'s own copies (native bodies), in first-arrival order. */
function ownCopies(messages: BrokerMessage[], instanceId: string): string[] {
  const first = arrivals(messages, instanceId).ids;
  const bodies = new Map(messages.map((m) => [m.id, JSON.parse(m.body) as { type: string; data: { message?: { id: string; fromMe: boolean } } }]));
  return first.map((id) => bodies.get(id)!).filter((b) => b.type === 'message' && b.data.message?.fromMe).map((b) => b.data.message!.id);
}

if (amqpUrl && natsUrl) {
  /**
   * Crash safety of the sinks on a real server process: a burst whose last publishes reached the brokers
   * but whose confirms and acks were held back (so the outbox never recorded them) is cut by SIGKILL; a
   * new process on the same SQLite data publishes everything, in order, and JetStream drops the re-sends
   * by their `Nats-Msg-Id` while RabbitMQ consumers see them again with the same `messageId`.
   */
  describe('event sinks: SIGKILL mid-burst and restart', () => {
    let dataDir: string;
    let server: ServerChild | undefined;
    const brokers = new SinkBrokers(amqpUrl, natsUrl);
    const ids: string[] = [];
    let a: { id: string; key: string };
    let b: { id: string; key: string };

    const pending = async (key: string) => {
      let total = 0;
      for (const sink of ['amqp', 'nats']) total += (await server!.request('GET', `/${key}/instance/sinks/${sink}/statistics`)).body.data.totalPending;
      return total;
    };
    const send = async (i: number) => {
      const res = await server!.request('POST', `/${a.key}/message/text`, { to: B, text: `burst ${i}` });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      ids.push(res.body.data.key.id);
    };

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'parley-sinks-sigkill-'));
      await brokers.start();
      server = await ServerChild.start(dataDir, CONFIG, { plugins: brokers.plugins() });
      const create = async (name: string, number: string) => {
        const created = await server!.connectedSandbox({ name, options: { number } });
        for (const sink of ['amqp', 'nats']) {
          const put = await server!.request('PUT', `/${created.key}/instance/sinks/${sink}`, { enabled: true, format: 'native' });
          assert.equal(put.status, 200, JSON.stringify(put.body));
        }
        return created;
      };
      a = await create('a', A);
      b = await create('b', B);
      for (let i = 0; i < BEFORE_HOLD; i++) await send(i);
      // Hold the brokers' answers: what follows is stored by the brokers, never recorded as sent by Parley.
      brokers.holdAnswers();
      for (let i = BEFORE_HOLD; i < BEFORE_HOLD + HELD; i++) await send(i);
      await new Promise((r) => setTimeout(r, 300));
      assert.ok((await pending(a.key)) > 0, 'publishes are unconfirmed at the kill');
      assert.equal(await server.kill('SIGKILL'), 'SIGKILL');
      await Promise.all([brokers.amqpProxy.restore(), brokers.natsProxy.restore()]);
      server = await ServerChild.start(dataDir, CONFIG, { plugins: brokers.plugins() });
      const deadline = Date.now() + 30_000;
      while ((await pending(a.key)) + (await pending(b.key)) > 0) {
        if (Date.now() > deadline) throw new Error('the backlog was not published after the restart');
        await new Promise((r) => setTimeout(r, 100));
      }
    });
    after(async () => {
      await server?.kill('SIGTERM');
      await brokers.close();
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    });

    it('every accepted event is published after the restart, in order, on both brokers', async () => {
      await new Promise((r) => setTimeout(r, 300));
      for (const messages of [brokers.amqp.messages(), brokers.nats.messages()]) {
        assert.deepEqual(ownCopies(messages, a.id), ids);
        const first = arrivals(messages, a.id).ids;
        assert.deepEqual(first, [...first].sort(), 'first arrivals follow event order (ULIDs)');
      }
    });

    it('JetStream de-duplicated the re-sends by id; RabbitMQ consumers saw them again with the same messageId', () => {
      for (const instance of [a.id, b.id]) {
        assert.ok([...arrivals(brokers.nats.messages(), instance).copies.values()].every((n) => n === 1), 'each id once in the stream');
      }
      const resent = [...arrivals(brokers.amqp.messages(), a.id).copies.values()].filter((n) => n > 1).length;
      assert.ok(resent > 0, 'the publishes whose confirms were held were published again after the restart');
    });
  });
}
