import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startHttpReceiver, type HttpReceiver } from '@parley/testkit';
import { apiError } from '../support/api-error.js';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { assertStandardSignature, eventIdOf, waitUntilDelivered } from '../support/webhook-receivers.js';

/** Two attempts 100 ms apart, then a dead letter. */
const WEBHOOKS = { timeoutMs: 1_000, retry: { schedule: [100], jitter: 0 }, housekeeping: { sweepCron: '* * * * * *' } };

/**
 * Redelivery of dead letters to the instance's current webhook settings (`target: "current"`), over
 * real HTTP: a receiver whose URL was wrong, fixed afterwards, gets the events the old URL failed.
 */
describe('webhooks: redelivery to the current settings', () => {
  let t: TestServer;
  let wrong: HttpReceiver;
  let fixed: HttpReceiver;
  let sender: { key: string };
  let target: { key: string; webhookSecret: string; number: string };

  before(async () => {
    t = await startTestServer({ storage: 'sqlite', config: { webhooks: WEBHOOKS } });
    [wrong, fixed] = await Promise.all([startHttpReceiver(), startHttpReceiver()]);
    wrong.respond({ status: 404 });
    sender = await t.connectedSandbox({ name: 'sender', number: '5511973000001' });
    const created = await t.connectedSandbox({ name: 'target', number: '5511973000002' });
    target = { ...created, number: '5511973000002' };
    await t.client(created.key).call('updateWebhookSettings', { body: { allowWebhook: true, webhookMessage: `${wrong.url}/typo`, webhookFormat: 'native' } });
  });
  after(async () => {
    await t.stop();
    await Promise.all([wrong.close(), fixed.close()]);
  });

  const api = () => t.client(target.key);
  const deadLetters = async () => (await api().call('webhookDeadLetters')).data;

  async function deadMessages(count: number): Promise<void> {
    const before = (await deadLetters()).length;
    for (let i = 0; i < count; i++) await t.client(sender.key).call('sendText', { body: { to: target.number, text: `lost ${before + i}` } });
    await t.waitFor(async () => (await deadLetters()).length >= before + count, 10_000, 'the deliveries to die');
  }

  it('refuses an unknown target naming the field, changing nothing', async () => {
    await deadMessages(1);
    await assert.rejects(api().call('webhookRedeliver', { body: { target: 'elsewhere' as never } }),
      apiError(400, 'validation_failed', 'body.target must be one of "original", "current"'));
    assert.equal((await deadLetters()).length, 1);
  });

  it('redelivers as they were by default: to the old URL, which fails again', async () => {
    await api().call('updateWebhookSettings', { body: { webhookMessage: `${fixed.url}/hook` } });
    const tried = wrong.requests.length;
    const answer = await api().call('webhookRedeliver', { body: {} });
    assert.deepEqual(answer.data, { redelivered: 1 });
    await t.waitFor(async () => wrong.requests.length >= tried + 2 && (await deadLetters()).length === 1, 10_000, 'the old URL to fail again');
    assert.equal(fixed.requests.length, 0);
  });

  it('redelivers to the current URL with target current: signed with the current secret, each event once, none left dead', async () => {
    await api().call('updateWebhookSettings', { body: { webhookMessage: `${wrong.url}/typo` } });
    await deadMessages(2);
    // The URL is fixed only now: every dead letter failed at the old one.
    await api().call('updateWebhookSettings', { body: { webhookMessage: `${fixed.url}/hook` } });
    const letters = await deadLetters();
    assert.equal(letters.length, 3);
    assert.ok(letters.every((letter) => letter.url === `${wrong.url}/typo`));
    const tried = wrong.requests.length;
    const answer = await api().call('webhookRedeliver', { body: { target: 'current' } });
    assert.deepEqual(answer.data, { redelivered: 3, kept: [] });
    const received = await fixed.waitFor(3, 10_000);
    await waitUntilDelivered(t, [target.key]);
    assert.deepEqual(received.map((r) => r.url), ['/hook', '/hook', '/hook']);
    assert.deepEqual(new Set(received.map(eventIdOf)), new Set(letters.map((letter) => letter.eventId)), 'the events that died, each once');
    for (const request of received) {
      assertStandardSignature(request, target.webhookSecret);
      assert.notEqual(request.headers['webhook-id'], letters.find((l) => l.eventId === eventIdOf(request))!.id, 'a delivery of its own (new URL)');
      assert.match((request.json as { data: { message: { text: string } } }).data.message.text ?? JSON.stringify(request.json), /lost \d/);
    }
    assert.deepEqual(await deadLetters(), []);
    assert.equal(wrong.requests.length, tried, 'nothing more went to the old URL');
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(fixed.requests.length, 3, 'and nothing twice');
  });

  it('keeps what the current settings send nowhere, and redelivers ids only', async () => {
    await api().call('updateWebhookSettings', { body: { webhookMessage: `${wrong.url}/typo` } });
    await deadMessages(2);
    const [first, second] = await deadLetters();
    await api().call('updateWebhookSettings', { body: { allowWebhook: false } });
    const off = await api().call('webhookRedeliver', { body: { ids: [first!.id], target: 'current' } });
    assert.deepEqual(off.data, { redelivered: 0, kept: [{ id: first!.id, reason: 'not_routed' }] });
    assert.equal((await deadLetters()).length, 2, 'kept as they were');
    await api().call('updateWebhookSettings', { body: { allowWebhook: true, webhookMessage: `${fixed.url}/again` } });
    const one = await api().call('webhookRedeliver', { body: { ids: [second!.id], target: 'current' } });
    assert.deepEqual(one.data, { redelivered: 1, kept: [] });
    await t.waitFor(() => fixed.requests.some((r) => r.url === '/again' && eventIdOf(r) === second!.eventId), 10_000, 'the one redelivered');
    assert.deepEqual((await deadLetters()).map((letter) => letter.id), [first!.id]);
  });
});
