import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { connect } from 'amqplib';
import { silentLogger } from '@parley/core';
import { describeSinkConformance, serviceUrlOrSkip } from '@parley/testkit';
import plugin, { AmqpSink, amqpUrl } from '../src/index.js';
import { amqpReader, deleteAmqpExchange } from '../src/testing/index.js';

const url = serviceUrlOrSkip('AMQP_URL', '@parley/sink-amqp against RabbitMQ');

/** The broker URL with another host and port (the suite's proxy, a dead port). */
function urlTo(base: string, target: { host: string; port: number }): string {
  const u = new URL(base);
  u.hostname = target.host;
  u.port = String(target.port);
  return u.href;
}

const exchangeOf = (run: string) => `parley.test.${run}`;

if (url) {
  const broker = new URL(url);
  describeSinkConformance('amqp', {
    broker: { host: broker.hostname, port: Number(broker.port || 5672) },
    deduplicates: false,
    create: (target, run) => new AmqpSink({
      url: urlTo(url, target), exchange: exchangeOf(run), publishTimeoutMs: 1_500, connectTimeoutMs: 1_000, heartbeatSeconds: 5,
    }, silentLogger),
    subscribe: (run) => amqpReader(url, exchangeOf(run)),
    cleanup: (run) => deleteAmqpExchange(url, exchangeOf(run)),
  });

  describe('@parley/sink-amqp specifics', () => {
    const cleanups: (() => Promise<void>)[] = [];
    after(async () => { for (const clean of cleanups) await clean(); });

    it('declares a durable topic exchange and publishes persistent JSON with the message id, type and headers', async () => {
      const exchange = exchangeOf(`spec${Date.now().toString(36)}`);
      const sink = new AmqpSink({ url, exchange, publishTimeoutMs: 2_000, connectTimeoutMs: 2_000, heartbeatSeconds: 30 }, silentLogger);
      const model = await connect(url);
      cleanups.push(async () => { await sink.stop(); const ch = await model.createChannel(); await ch.deleteExchange(exchange); await model.close(); });
      await sink.start();
      const channel = await model.createChannel();
      channel.on('error', () => undefined);
      // checkExchange fails (closing the channel) when it does not exist; a passive re-declare with other flags would too.
      await channel.checkExchange(exchange);
      await assert.rejects(channel.assertExchange(exchange, 'topic', { durable: false }), /PRECONDITION_FAILED|inequivalent/);
      const check = await model.createChannel();
      const { queue } = await check.assertQueue('', { exclusive: true });
      await check.bindQueue(queue, exchange, 'ins_abc.messages.*');
      await sink.publish({ id: 'evt_1', instance: 'ins_abc', field: 'messages', event: 'message-status', format: 'meta', body: '{"a":1}' }, new AbortController().signal);
      let got: Awaited<ReturnType<typeof check.get>> = false;
      for (let i = 0; i < 50 && !got; i++) {
        got = await check.get(queue, { noAck: true });
        if (!got) await new Promise((r) => setTimeout(r, 20));
      }
      assert.ok(got, 'the message arrived');
      assert.equal(got.fields.routingKey, 'ins_abc.messages.message-status');
      assert.equal(got.properties.messageId, 'evt_1');
      assert.equal(got.properties.deliveryMode, 2);
      assert.equal(got.properties.contentType, 'application/json');
      assert.equal(got.properties.type, 'messages.message-status');
      assert.deepEqual(got.properties.headers, { 'parley-instance': 'ins_abc', 'parley-format': 'meta' });
      assert.equal(got.content.toString(), '{"a":1}');
    });

    it('refuses to register without a URL, and takes credentials from AMQP_USERNAME / AMQP_PASSWORD', async () => {
      const saved = process.env.AMQP_URL;
      delete process.env.AMQP_URL;
      try {
        await assert.rejects(async () => plugin.register({ options: {}, sinks: { add() {} } } as never), /options\.url or the AMQP_URL/);
      } finally {
        process.env.AMQP_URL = saved;
      }
      assert.equal(amqpUrl('amqp://a:b@h:5672/v', { AMQP_USERNAME: 'u@x', AMQP_PASSWORD: 'p/w' }), 'amqp://u%40x:p%2Fw@h:5672/v');
      assert.equal(amqpUrl('amqp://a:b@h:5672/v', {}), 'amqp://a:b@h:5672/v');
    });
  });
}
