import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeOnSmallDisk, logLines, useSmallDiskServer } from '../support/small-disk.js';

const ALICE = '5511974000001';
const BOB = '5511974000002';
/** Messages bob's phone takes in before the disk fills; their events reach the subscribers while it is full. */
const HELD = 5;

/**
 * Inbound events whose writes cannot commit (SQLite's group commit on a full disk: `SQLITE_FULL`, the
 * turn's batch rolled back) are a storage outage like a failed write: held, in order, then stored and
 * delivered exactly once when space returns — not counted as handled when their commit failed.
 */
describeOnSmallDisk('inbound events while the SQLite disk is full', (small) => {
  const env = useSmallDiskServer(small, [500, 1_000, 2_000]);

  it('holds the events whose commit failed and stores each message and delivers its webhook exactly once when space returns', { timeout: 120_000 }, async () => {
    const { t, receiver } = env;
    const alice = await t.connectedSandbox({ name: 'alice', number: ALICE });
    const bob = await t.connectedSandbox({ name: 'bob', number: BOB, webhook: { allowWebhook: true, webhookFormat: 'native', webhookMessage: `${receiver.url}/hook` } });
    // mark_messages: bob's phone sends each message's read receipt as it is handled — once, however often a failed commit makes it run again.
    assert.equal((await t.client(bob.key).call('updateInstanceFlags', { query: { markMessageRead: true } })).status, 200);
    const send = (text: string) => t.request('POST', `/${alice.key}/message/text`, { to: BOB, text });
    // bob's events wait on his chain (a task there holds them) until the disk is full.
    let release!: () => void;
    const held = t.server.context.bus.run(bob.id, () => new Promise<void>((resolve) => (release = resolve)));
    const accepted: string[] = [];
    for (let i = 0; i < HELD; i++) {
      const sent = await send(`held ${i}`);
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      accepted.push(`held ${i}`);
    }
    await t.waitFor(async () => {
      const history = await t.request('GET', `/${alice.key}/chat/${BOB}/messages?limit=100`);
      return history.body.data.length === HELD && history.body.data.every((m: { status: string }) => m.status === 'DELIVERY_ACK');
    }, 15_000, 'bob\'s phone to take every message in');
    // The sends the disk took while filling are bob's messages too (their events wait behind the held ones).
    accepted.push(...await small.fillUntilRefused(send));
    release();
    await held;
    const textsAtBob = async () => {
      const history = await t.request('GET', `/${bob.key}/chat/${ALICE}/messages?limit=100`);
      return history.status === 200 ? (history.body.data as unknown[]).map((m) => JSON.stringify(m).match(/(held|while filling) \d+/)?.[0]) : [];
    };
    // bob's handling cannot commit now; it is retried, not counted as done.
    await t.waitFor(() => logLines(t, (msg) => /sqlite storage cannot write/.test(msg)).length > 0 || t.logs.some((l) => l.includes('SQLITE_FULL')), 10_000, 'a failed write');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const whileFull = (await textsAtBob()).length;
    assert.ok(whileFull < accepted.length, `bob's events wait while the disk is full (${whileFull} of ${accepted.length} stored)`);

    small.free();
    await t.waitFor(async () => (await t.request('GET', '/readyz')).status === 200, 10_000, '/readyz ready again');
    const stored = await t.waitFor(async () => {
      const texts = await textsAtBob();
      return accepted.every((text) => texts.includes(text)) ? texts : undefined;
    }, 30_000, 'every accepted message to be stored at bob');
    assert.equal(new Set(stored).size, stored.length, 'each stored once');
    const deliveriesOf = (text: string) => receiver.requests.filter((r) => r.body.includes(`"${text}"`)).length;
    await t.waitFor(() => stored.every((text) => deliveriesOf(text!) >= 1), 30_000, 'every stored message\'s webhook');
    // A duplicate would come with a webhook retry (leaseMs 3 s): wait past it.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    assert.deepEqual(stored.map((text) => deliveriesOf(text!)), stored.map(() => 1), 'each webhook delivered exactly once');
    assert.equal(receiver.requests.filter((r) => r.body.includes('"type":"message"')).length, stored.length, 'no webhook for a message that is not stored');
    assert.deepEqual(logLines(t, (msg) => /given up|failed after retries|did not commit/.test(msg)), [], 'no event given up');
    const reads = new Map<string, number>();
    for (const e of t.events) {
      if (e.instance === alice.id && e.type === 'message.status' && e.status === 'read') reads.set(e.messageId!, (reads.get(e.messageId!) ?? 0) + 1);
    }
    assert.deepEqual([...reads.values()], stored.map(() => 1), 'one read receipt per message (mark_messages), however often its handling ran');
  });
});
