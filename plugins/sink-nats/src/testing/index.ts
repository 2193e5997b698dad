/**
 * Test support for suites that read what the NATS sink published (the plugin's own tests, end-to-end
 * tests, benchmarks). Not used by the plugin itself.
 */
import { AckPolicy, connect, DeliverPolicy } from 'nats';

/** A message as a consumer got it: `topic` is the subject without the prefix token. */
export interface ReadMessage {
  id: string;
  topic: string;
  body: string;
}

/**
 * Reads everything stored in `stream` (created with subjects `<prefix>.>` when missing, as the sink
 * would) through an ephemeral consumer from the first message. Start it before the publishes or after:
 * JetStream keeps what was published.
 */
export async function natsReader(url: string, stream: string, prefix: string): Promise<{ messages(): ReadMessage[]; close(): Promise<void> }> {
  const nc = await connect({ servers: url });
  const jsm = await nc.jetstreamManager();
  await jsm.streams.add({ name: stream, subjects: [`${prefix}.>`], duplicate_window: 120_000_000_000 }).catch(() => undefined);
  const info = await jsm.consumers.add(stream, { ack_policy: AckPolicy.None, deliver_policy: DeliverPolicy.All, inactive_threshold: 60_000_000_000 });
  const consumer = await nc.jetstream().consumers.get(stream, info.name);
  const received: ReadMessage[] = [];
  const messages = await consumer.consume();
  void (async () => {
    for await (const m of messages) received.push({ id: m.headers?.get('Nats-Msg-Id') ?? '', topic: m.subject.slice(prefix.length + 1), body: m.string() });
  })();
  return { messages: () => [...received], close: async () => { await messages.close(); await nc.close(); } };
}

/** Deletes a stream a test run created. */
export async function deleteNatsStream(url: string, stream: string): Promise<void> {
  const nc = await connect({ servers: url });
  await (await nc.jetstreamManager()).streams.delete(stream).catch(() => undefined);
  await nc.close();
}
