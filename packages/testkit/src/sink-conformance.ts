import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, describe, it } from './test-runner.js';
import type { Sink, SinkMessage } from '@parley/core';
import { eventually, TcpProxy } from './tcp-proxy.js';

/** A message as the broker handed it to a consumer. */
export interface ReceivedSinkMessage {
  /** The broker's message id (AMQP `messageId`, NATS `Nats-Msg-Id`). */
  id: string;
  /** The topic without the sink's own prefix or exchange: `<instance id>.<field>.<event>`. */
  topic: string;
  body: string;
}

/** A consumer of everything a sink publishes under one run's topology, started before the publishes. */
export interface SinkReader {
  /** What arrived so far, in arrival order. */
  messages(): ReceivedSinkMessage[];
  close(): Promise<void>;
}

/** What a sink plugin gives the suite. Every run uses topology of its own (exchange, stream, subjects). */
export interface SinkConformanceHarness {
  /** The real broker; the suite puts its own TCP proxy in front of it for the outage cases. */
  broker: { host: string; port: number };
  /** A sink reaching the broker at `target` (the proxy, or a dead port), publishing under the topology of `run`. */
  create(target: { host: string; port: number }, run: string): Sink;
  /** Starts consuming what sinks of `run` publish (creating what the consumer needs). */
  subscribe(run: string): Promise<SinkReader>;
  /** Deletes everything `run` created on the broker. */
  cleanup(run: string): Promise<void>;
  /** True when the broker drops a re-sent message id by itself (JetStream); false: consumers may see it twice. */
  deduplicates: boolean;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A message of `instance` numbered `n`. */
export function sinkTestMessage(instance: string, n: number, event = 'message'): SinkMessage {
  return {
    id: `evt_${instance}_${String(n).padStart(6, '0')}`, instance, field: 'messages', event, format: 'native',
    body: JSON.stringify({ instance, n, text: `message ${n} ✓` }),
  };
}

/** The ids of `instance` in first-arrival order (a re-send shows where it first came). */
function firstArrivals(received: ReceivedSinkMessage[], instance: string): string[] {
  const seen = new Set<string>();
  for (const m of received) if (m.topic.startsWith(`${instance}.`) && !seen.has(m.id)) seen.add(m.id);
  return [...seen];
}

/** Publishes until the sink confirms, as the host's worker would (bounded: `attempts` tries). */
async function publishSurely(sink: Sink, message: SinkMessage, attempts = 200): Promise<number> {
  for (let i = 1; i <= attempts; i++) {
    try {
      await sink.publish(message, new AbortController().signal);
      return i;
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`${message.id} not confirmed after ${attempts} attempts`);
}

/** A loopback port nothing listens on. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The contract every event sink keeps (docs/plugins.md "Event sinks"), against a real broker: confirmed
 * publishes arrive with the event id as message id under `<instance>.<field>.<event>` with the exact
 * body, in order per instance; an unreachable broker is an error, never a hang or a crash; an outage
 * (resets, then silence) loses nothing and keeps order once it ends; re-sends of an id are dropped when
 * the broker de-duplicates. A third party's sink (Kafka, SQS) runs the same suite with its own harness.
 */
export function describeSinkConformance(name: string, harness: SinkConformanceHarness): void {
  describe(`sink conformance: ${name}`, () => {
    const runs: string[] = [];
    const sinks: Sink[] = [];
    const proxy = new TcpProxy(harness.broker.host, harness.broker.port);
    const newRun = () => {
      const run = `t${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
      runs.push(run);
      return run;
    };
    const sinkOf = (target: { host: string; port: number }, run: string) => {
      const sink = harness.create(target, run);
      sinks.push(sink);
      return sink;
    };
    const viaProxy = () => ({ host: '127.0.0.1', port: proxy.port });

    before(() => proxy.start());
    after(async () => {
      await Promise.all(sinks.map((sink) => sink.stop()));
      await proxy.cut();
      for (const run of runs) await harness.cleanup(run);
    });

    it('publishes confirmed messages with the event id, the topic and the exact body, in order per instance', async () => {
      const run = newRun();
      const reader = await harness.subscribe(run);
      const sink = sinkOf(harness.broker, run);
      await sink.start();
      assert.equal(sink.health().ready, true);
      const instances = ['ins_conf_a', 'ins_conf_b', 'ins_conf_c'];
      const sent = new Map(instances.map((instance) => [instance, Array.from({ length: 40 }, (_, n) => sinkTestMessage(instance, n, n % 2 ? 'message-status' : 'message'))]));
      await Promise.all(instances.map(async (instance) => {
        for (const message of sent.get(instance)!) await sink.publish(message, new AbortController().signal);
      }));
      assert.ok(await eventually(async () => reader.messages().length >= 120, 200, 50), `got ${reader.messages().length} of 120`);
      await sleep(200);
      const received = reader.messages();
      assert.equal(received.length, 120, 'each confirmed message arrives once');
      for (const instance of instances) {
        const mine = received.filter((m) => m.topic.startsWith(`${instance}.`));
        assert.deepEqual(mine.map((m) => m.id), sent.get(instance)!.map((m) => m.id));
        assert.deepEqual(mine.map((m) => m.topic), sent.get(instance)!.map((m) => `${m.instance}.${m.field}.${m.event}`));
        assert.deepEqual(mine.map((m) => m.body), sent.get(instance)!.map((m) => m.body));
      }
      await reader.close();
    });

    it(harness.deduplicates ? 'drops a re-sent message id' : 'delivers a re-sent message id at least once', async () => {
      const run = newRun();
      const reader = await harness.subscribe(run);
      const sink = sinkOf(harness.broker, run);
      const message = sinkTestMessage('ins_conf_dup', 1);
      await sink.publish(message, new AbortController().signal);
      await sink.publish(message, new AbortController().signal);
      await sink.publish(sinkTestMessage('ins_conf_dup', 2), new AbortController().signal);
      assert.ok(await eventually(async () => reader.messages().some((m) => m.id === sinkTestMessage('ins_conf_dup', 2).id), 200, 50));
      const copies = reader.messages().filter((m) => m.id === message.id).length;
      if (harness.deduplicates) assert.equal(copies, 1);
      else assert.ok(copies >= 1 && copies <= 2, `${copies} copies`);
      await reader.close();
    });

    it('reports an unreachable broker as an error and not ready, without hanging', async () => {
      const sink = sinkOf({ host: '127.0.0.1', port: await deadPort() }, newRun());
      const started = performance.now();
      await assert.rejects(sink.start());
      assert.equal(sink.health().ready, false);
      assert.match(sink.health().detail ?? '', /./, 'the health says why');
      await assert.rejects(sink.publish(sinkTestMessage('ins_conf_dead', 1), new AbortController().signal));
      assert.ok(performance.now() - started < 60_000, 'bounded by the sink time-outs');
    });

    it('loses nothing and keeps order through an outage (resets, then silence, then restored)', async () => {
      const run = newRun();
      const reader = await harness.subscribe(run);
      const sink = sinkOf(viaProxy(), run);
      await sink.start();
      const instances = ['ins_conf_x', 'ins_conf_y'];
      const total = 60;
      const sent = new Map(instances.map((instance) => [instance, Array.from({ length: total }, (_, n) => sinkTestMessage(instance, n))]));
      let published = 0;
      const burst = Promise.all(instances.map(async (instance) => {
        for (const message of sent.get(instance)!) {
          await publishSurely(sink, message);
          published++;
          await sleep(5);
        }
      }));
      assert.ok(await eventually(async () => published >= 20, 400, 25), 'the burst is under way');
      await proxy.reset();
      await sleep(700);
      await proxy.silence();
      await sleep(1_500);
      assert.ok(published < 2 * total, 'the outage began mid-burst');
      await proxy.restore();
      await burst;
      assert.ok(await eventually(async () => instances.every((i) => firstArrivals(reader.messages(), i).length === total), 300, 50), 'every message arrived');
      for (const instance of instances) assert.deepEqual(firstArrivals(reader.messages(), instance), sent.get(instance)!.map((m) => m.id));
      if (harness.deduplicates) assert.equal(reader.messages().length, 2 * total, 'the broker dropped the re-sends');
      assert.equal(sink.health().ready, true);
      await reader.close();
    });

    it('publishes a batch pipelined: every message confirmed, arriving once, in order (a sink with publishBatch)', async (t) => {
      const run = newRun();
      const sink = sinkOf(harness.broker, run);
      if (!sink.publishBatch) return t.skip('the sink has no publishBatch: the host publishes one message at a time');
      const reader = await harness.subscribe(run);
      await sink.start();
      const batch = Array.from({ length: 200 }, (_, n) => sinkTestMessage('ins_conf_batch', n));
      assert.deepEqual(await sink.publishBatch(batch, new AbortController().signal), { confirmed: batch.length });
      assert.deepEqual(await sink.publishBatch([], new AbortController().signal), { confirmed: 0 });
      assert.ok(await eventually(async () => reader.messages().length >= batch.length, 200, 50), `got ${reader.messages().length} of ${batch.length}`);
      assert.deepEqual(reader.messages().map((m) => m.id), batch.map((m) => m.id));
      await reader.close();
    });

    it('after an outage it reconnects by itself, with no publish to prompt it, and tells onReconnect (a sink with onReconnect)', async (t) => {
      const sink = sinkOf(viaProxy(), newRun());
      if (!sink.onReconnect) return t.skip('the sink has no onReconnect: the host resumes at the next retry');
      let reconnects = 0;
      sink.onReconnect(() => reconnects++);
      await sink.start();
      const connected = reconnects;
      await proxy.reset();
      await sleep(700);
      await proxy.silence();
      if (sink.publishBatch) {
        // No connection: it rejects; a connection that hangs: it answers the confirmed prefix and why the rest was not.
        const result = await sink.publishBatch([sinkTestMessage('ins_conf_down', 1), sinkTestMessage('ins_conf_down', 2)], new AbortController().signal)
          .catch((error: unknown) => ({ confirmed: 0, error: error as Error }));
        assert.ok(result.confirmed < 2 && result.error instanceof Error, 'a batch during the outage is not confirmed whole, and says why');
      }
      await proxy.restore();
      assert.ok(await eventually(async () => reconnects > connected && sink.health().ready, 400, 50), 'reconnected and told the listener');
    });

    it('stops idempotently; a stopped sink refuses to publish', async () => {
      const sink = sinkOf(harness.broker, newRun());
      await sink.start();
      await sink.stop();
      await sink.stop();
      assert.equal(sink.health().ready, false);
      await assert.rejects(sink.publish(sinkTestMessage('ins_conf_stop', 1), new AbortController().signal));
    });
  });
}
