import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { connect, type NatsConnection } from 'nats';
import { silentLogger } from '@parley/core';
import { describeSinkConformance, eventually, serviceUrlOrSkip, TcpProxy } from '@parley/testkit';
import { NatsSink, natsConnection, type NatsSinkSettings } from '../src/index.js';
import { deleteNatsStream, natsReader } from '../src/testing/index.js';

const url = serviceUrlOrSkip('NATS_URL', '@parley/sink-nats against NATS JetStream');

/** Each run has a stream and a subject prefix of its own: the shared server may hold other `parley.>` streams. */
const streamOf = (run: string) => `PARLEY_TEST_${run}`;
const prefixOf = (run: string) => `parleytest_${run}`;

function settings(run: string, servers: string[], overrides: Partial<NatsSinkSettings> = {}): NatsSinkSettings {
  return {
    servers, stream: streamOf(run), subjectPrefix: prefixOf(run), duplicateWindowMs: 120_000, maxAgeMs: 3_600_000,
    publishTimeoutMs: 1_500, connectTimeoutMs: 1_000, ...overrides,
  };
}

async function deleteStream(nc: NatsConnection, stream: string): Promise<void> {
  const jsm = await nc.jetstreamManager();
  await jsm.streams.delete(stream).catch(() => undefined);
}

if (url) {
  const broker = new URL(url);
  describeSinkConformance('nats', {
    broker: { host: broker.hostname, port: Number(broker.port || 4222) },
    deduplicates: true,
    create: (target, run) => new NatsSink(settings(run, [`nats://${target.host}:${target.port}`]), silentLogger),
    subscribe: (run) => natsReader(url, streamOf(run), prefixOf(run)),
    cleanup: (run) => deleteNatsStream(url, streamOf(run)),
  });

  describe('@parley/sink-nats specifics', () => {
    const streams: string[] = [];
    after(async () => {
      const nc = await connect({ servers: url });
      for (const stream of streams) await deleteStream(nc, stream);
      await nc.close();
    });

    it('creates the stream with subjects <prefix>.> and the duplicate window, and publishes with Nats-Msg-Id', async () => {
      const run = `spec${Date.now().toString(36)}`;
      streams.push(streamOf(run));
      const sink = new NatsSink(settings(run, [url], { duplicateWindowMs: 60_000 }), silentLogger);
      await sink.start();
      await sink.publish({ id: 'evt_n1', instance: 'ins_abc', field: 'connection', event: 'connection', format: 'native', body: '{"b":2}' }, new AbortController().signal);
      await sink.publish({ id: 'evt_n1', instance: 'ins_abc', field: 'connection', event: 'connection', format: 'native', body: '{"b":2}' }, new AbortController().signal);
      const nc = await connect({ servers: url });
      const info = await (await nc.jetstreamManager()).streams.info(streamOf(run));
      assert.deepEqual(info.config.subjects, [`${prefixOf(run)}.>`]);
      assert.equal(info.config.duplicate_window, 60_000_000_000);
      assert.equal(info.config.storage, 'file');
      assert.equal(info.state.messages, 1, 'the re-send was de-duplicated');
      const stored = await (await nc.jetstreamManager()).streams.getMessage(streamOf(run), { seq: 1 });
      assert.equal(stored.subject, `${prefixOf(run)}.ins_abc.connection.connection`);
      assert.equal(stored.header.get('Nats-Msg-Id'), 'evt_n1');
      assert.equal(stored.header.get('Parley-Format'), 'native');
      assert.equal(stored.string(), '{"b":2}');
      await sink.stop();
      await nc.close();
    });

    it('refuses a stream that exists with other subjects, naming it', async () => {
      const run = `bad${Date.now().toString(36)}`;
      streams.push(streamOf(run));
      const nc = await connect({ servers: url });
      await (await nc.jetstreamManager()).streams.add({ name: streamOf(run), subjects: [`other_${run}.>`] });
      await nc.close();
      const sink = new NatsSink(settings(run, [url]), silentLogger);
      await assert.rejects(sink.start(), new RegExp(`stream ${streamOf(run)} exists with subjects \\[other_${run}\\.>\\], which do not include ${prefixOf(run)}\\.>`));
      assert.equal(sink.health().ready, false);
      await sink.stop();
    });

    it('keeps the new connection when a batch sent on the connection it replaced gets no ack', async () => {
      const run = `keep${Date.now().toString(36)}`;
      streams.push(streamOf(run));
      const proxy = new TcpProxy(broker.hostname, Number(broker.port || 4222));
      await proxy.start();
      const sink = new NatsSink(settings(run, [`nats://127.0.0.1:${proxy.port}`], { publishTimeoutMs: 3_000 }), silentLogger);
      try {
        await sink.start();
        let reconnects = 0;
        sink.onReconnect(() => reconnects++);
        const message = { id: 'evt_k1', instance: 'ins_abc', field: 'connection', event: 'connection', format: 'native', body: '{}' };
        // The broker stores the batch, its ack is lost with the connection; the client reconnects before the ack's time-out.
        proxy.holdAnswers();
        const batch = sink.publishBatch([message], new AbortController().signal);
        await new Promise((r) => setTimeout(r, 200));
        await proxy.reset();
        await proxy.restore();
        assert.ok(await eventually(async () => reconnects === 1, 100, 50), 'the client reconnected');
        const lost = await batch;
        assert.equal(lost.confirmed, 0);
        assert.match(lost.error?.message ?? '', /TIMEOUT/);
        // A forced reconnect would drop the new connection and report one more reconnection.
        await new Promise((r) => setTimeout(r, 1_500));
        assert.equal(reconnects, 1, 'the new connection was kept');
        assert.deepEqual(sink.health(), { ready: true });
        assert.equal((await sink.publishBatch([{ ...message, id: 'evt_k2' }], new AbortController().signal)).confirmed, 1);
      } finally {
        await sink.stop();
        await proxy.cut();
      }
    });

    it('takes credentials from NATS_USER / NATS_PASSWORD / NATS_TOKEN and keeps them out of the server URLs', () => {
      assert.deepEqual(natsConnection('nats://a:b@h1:4222, nats://h2:4223', {}), { servers: ['nats://h1:4222', 'nats://h2:4223'], user: 'a', pass: 'b' });
      assert.deepEqual(natsConnection('nats://h:4222', { NATS_USER: 'u', NATS_PASSWORD: 'p', NATS_TOKEN: 't' }), { servers: ['nats://h:4222'], user: 'u', pass: 'p', token: 't' });
    });
  });
}
