import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ChannelEventPayload, DeliveryStatus, MessageRecord } from '@parley/core';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { eventIdOf } from '../support/webhook-receivers.js';

const SELF = '5511978000001';
const PEER = `${'5511978000002'}@s.whatsapp.net`;

/** The channel's copy of an own message `id`, its record at `status`. */
function ownMessage(id: string, status: MessageRecord['status'] = 'SERVER_ACK'): ChannelEventPayload {
  const record: MessageRecord = { key: { remoteJid: PEER, fromMe: true, id }, message: { conversation: `text ${id}` }, messageTimestamp: '1700000000', status };
  return {
    type: 'message',
    message: { id, chatJid: PEER, from: SELF, fromMe: true, timestamp: 1700000000, chatType: 'individual', content: { type: 'text', body: `text ${id}` }, record },
  };
}

const receipt = (messageId: string, status: DeliveryStatus): ChannelEventPayload =>
  ({ type: 'message.status', messageId, chatJid: PEER, recipientId: PEER, status, timestamp: 1700000001 });

/**
 * Runs that mix messages and statuses (issue 29): the real server on SQLite, an instance whose native
 * webhook goes to one URL, its event chain held by a `run` task while its channel publishes, so the
 * events form one run when the task ends. What is stored and delivered must be what handling the
 * events one by one, in publish order, gives.
 */
describe('a run of messages and statuses mixed, on SQLite', () => {
  let t: TestServer;
  let instance: { id: string; key: string };

  before(async () => {
    t = await startTestServer({ storage: 'sqlite' });
    instance = await t.connectedSandbox({ name: 'self', number: SELF });
    const put = await t.client(instance.key).call('updateWebhookSettings', {
      body: { allowWebhook: true, webhookFormat: 'native', webhookMessage: `${t.host.receiver.url}/all` },
    });
    assert.equal(put.status, 200);
    await t.settle();
  });
  after(async () => {
    await t?.stop();
  });

  it('applies each status after its message and an early status when its message comes, and keeps the webhook order', async () => {
    const bus = t.server.context.bus;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const held = bus.run(instance.id, () => gate);
    const payloads: ChannelEventPayload[] = [
      ownMessage('MIX1'), receipt('MIX1', 'delivered'),
      ownMessage('MIX2'), receipt('MIX2', 'delivered'), receipt('MIX1', 'read'),
      // Early: its message comes after it in the run.
      receipt('MIX3', 'read'), ownMessage('MIX3'),
      // A failure, then the channel's copy again (a replay): handled one by one, the copy's status stands.
      receipt('MIX2', 'failed'), ownMessage('MIX2'),
    ];
    const before = t.events.length;
    for (const payload of payloads) bus.publish(instance.id, 'sandbox', payload);
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    await held;
    await t.settle();
    const published = t.events.slice(before).filter((e) => e.instance === instance.id);
    assert.equal(published.length, payloads.length);
    const ids = published.map((e) => e.id);

    const status = async (id: string) => (await t.client(instance.key).call('getMessage', { params: { messageId: id } })).data.status;
    assert.equal(await status('MIX1'), 'READ', 'both receipts applied after the message');
    assert.equal(await status('MIX3'), 'READ', 'the early receipt waited for its message');
    assert.equal(await status('MIX2'), 'SERVER_ACK', 'the replayed copy applied after the failure, as one by one');

    // The webhook: every event, in publish order, on the instance's one URL.
    const delivered = await t.host.receiver.waitFor(payloads.length, 10_000);
    assert.deepEqual(delivered.filter((r) => r.url === '/all').map(eventIdOf), ids);
  });
});
