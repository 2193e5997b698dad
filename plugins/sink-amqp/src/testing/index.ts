/**
 * Test support for suites that read what the AMQP sink published (the plugin's own tests, end-to-end
 * tests, benchmarks). Not used by the plugin itself.
 */
import { connect } from 'amqplib';

/** A message as a consumer got it: `topic` is the routing key. */
export interface ReadMessage {
  id: string;
  topic: string;
  body: string;
}

/**
 * Consumes everything published to `exchange` (declared durable topic, as the sink does) through an
 * exclusive queue bound with `#`. Start it before the publishes.
 */
export async function amqpReader(url: string, exchange: string): Promise<{ messages(): ReadMessage[]; close(): Promise<void> }> {
  const model = await connect(url);
  const channel = await model.createChannel();
  await channel.assertExchange(exchange, 'topic', { durable: true });
  const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
  await channel.bindQueue(queue, exchange, '#');
  const received: ReadMessage[] = [];
  await channel.consume(queue, (m) => {
    if (m) received.push({ id: String(m.properties.messageId), topic: m.fields.routingKey, body: m.content.toString('utf8') });
  }, { noAck: true });
  return { messages: () => [...received], close: () => model.close() };
}

/** Deletes an exchange a test run declared. */
export async function deleteAmqpExchange(url: string, exchange: string): Promise<void> {
  const model = await connect(url);
  const channel = await model.createChannel();
  await channel.deleteExchange(exchange);
  await model.close();
}
