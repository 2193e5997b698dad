import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeOnSmallDisk, logLines, useSmallDiskServer } from '../support/small-disk.js';

const ALICE = '5511974100001';
const BOB = '5511974100002';
const CAROL = '5511974100003';
/** Presence events of carol's at bob: each a run of its own, logged only (bob's webhook takes alice's events alone). */
const PRESENCES = 3;

/**
 * The event bus handles an instance's next run before the previous run's writes are committed, so several
 * runs of one instance share a group commit. When that commit fails (a full disk), every run whose writes
 * it discarded is handled again, in order, each once durable: none lost, none logged or delivered twice.
 */
describeOnSmallDisk('several runs of one instance in one failed SQLite commit', (small) => {
  const env = useSmallDiskServer(small, [500, 1_000, 2_000]);

  it('handles each run again once the disk has room: every event logged once, in order, each webhook delivered once', { timeout: 120_000 }, async () => {
    const { t, receiver } = env;
    const alice = await t.connectedSandbox({ name: 'alice', number: ALICE });
    const carol = await t.connectedSandbox({ name: 'carol', number: CAROL });
    const bob = await t.connectedSandbox({
      name: 'bob', number: BOB, webhook: { allowWebhook: true, allowNumber: ALICE, webhookFormat: 'native', webhookMessage: `${receiver.url}/hook` },
    });
    assert.equal((await t.client(bob.key).call('updateInstanceFlags', { query: { receivePresence: true } })).status, 200);
    const told = () => t.events.filter((e) => e.instance === bob.id).map((e) => e.id);
    const earlier = told().length;
    const toldSince = () => told().slice(earlier);
    const log = async () => (await t.server.context.storage.events.read({ instance: bob.id, limit: 1_000 })).map((e) => [e.id, e.type] as const);
    const loggedEarlier = (await log()).length;
    const logged = async () => (await log()).slice(loggedEarlier);
    // bob's events wait on his chain (a task there holds them) until the disk is full.
    let release!: () => void;
    const held = t.server.context.bus.run(bob.id, () => new Promise<void>((resolve) => (release = resolve)));
    for (let i = 0; i < PRESENCES; i++) {
      const sent = await t.request('POST', `/${carol.key}/message/presence`, { to: BOB, status: i % 2 ? 'paused' : 'composing' });
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
    }
    const send = (text: string) => t.request('POST', `/${alice.key}/message/text`, { to: BOB, text });
    assert.equal((await send('first')).status, 200);
    await t.waitFor(async () => {
      const history = await t.request('GET', `/${alice.key}/chat/${BOB}/messages?limit=10`);
      return history.body.data.length === 1 && history.body.data[0].status === 'DELIVERY_ACK';
    }, 15_000, 'bob\'s phone to take the message in');
    const accepted = ['first', ...await small.fillUntilRefused(send)];
    // bob's presence runs and his message run are handled in one turn, into one commit, which fails.
    release();
    await held;
    await t.waitFor(() => t.logs.some((l) => l.includes('SQLITE_FULL')), 10_000, 'a failed commit');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    assert.deepEqual(toldSince(), [], 'no run of bob\'s is over while its writes are not durable');

    small.free();
    await t.waitFor(async () => (await t.request('GET', '/readyz')).status === 200, 10_000, '/readyz ready again');
    const events = await t.waitFor(async () => {
      const now = await logged();
      // Logged (readable on the writer's connection before its commit) and over (durable).
      const all = now.filter(([, type]) => type === 'presence').length === PRESENCES && now.filter(([, type]) => type === 'message').length === accepted.length;
      return all && toldSince().length >= now.length ? now : undefined;
    }, 30_000, 'every event of bob\'s to be logged and over');
    assert.deepEqual(toldSince(), events.map(([id]) => id), 'each event over once, in publish order, as logged');
    assert.deepEqual(events.slice(0, PRESENCES).map(([, type]) => type), Array(PRESENCES).fill('presence'), 'the presence runs before the message run');
    const messageIds = events.filter(([, type]) => type === 'message').map(([id]) => id);
    const deliveriesOf = (id: string) => receiver.requests.filter((r) => r.body.includes(`"${id}"`)).length;
    await t.waitFor(() => messageIds.every((id) => deliveriesOf(id) >= 1), 30_000, 'every message\'s webhook');
    // A duplicate would come with a webhook retry (leaseMs 3 s): wait past it.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    assert.deepEqual(messageIds.map(deliveriesOf), messageIds.map(() => 1), 'each webhook delivered exactly once per event id');
    assert.equal(receiver.requests.filter((r) => r.body.includes('"type":"presence"')).length, 0, 'carol\'s presence is not forwarded (allowNumber)');
    assert.deepEqual(logLines(t, (msg) => /given up|failed after retries/.test(msg)), [], 'no event given up');
  });
});
