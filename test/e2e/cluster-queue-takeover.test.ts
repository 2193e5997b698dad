import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RedisStorage } from '@parley/storage-redis';
import { serviceUrlOrSkip } from '@parley/testkit';
import { freePort, NodeProcess } from '@parley/testkit/host';
import { createSandboxInstances, storedMessageIds, tearDownCluster, until, type Instance } from '../support/cluster-load.js';

/** Short cluster leases keep the test short: a dead owner's instances are free 3 s after its last renewal. */
const TIMING = { leaseTtlMs: 3000, renewIntervalMs: 1000, driftMarginMs: 500 };
/** A queue lease far longer than the test may take: a send that waited for it would fail the test. */
const QUEUE = { leaseMs: 120_000, recheckMs: 200 };
const TYPING_MS = 4000;

/**
 * Cluster nodes (the real CLI) on one Redis. A send is leased by its instance's owner and on its way
 * (showing typing) when that node is SIGKILLed: the instance's new owner takes the send over as soon
 * as it holds the instance's lease, and the message arrives long before the send's own queue lease
 * (120 s) would have let anyone take it. An owner paused mid-send instead, and resumed after the
 * take-over, checks its ownership before sending and leaves the send alone.
 */
describe('cluster: a SIGKILLed owner\'s leased sends are taken over by the new owner', () => {
  const redisUrl = serviceUrlOrSkip('REDIS_URL', 'cluster queue take-over');
  if (!redisUrl) return;
  const keyPrefix = `parley-test:cluster-takeover:${process.pid}-${randomBytes(4).toString('hex')}:`;
  const dir = mkdtempSync(join(tmpdir(), 'parley-cluster-takeover-'));
  const storage = new RedisStorage({ url: redisUrl, keyPrefix });
  const nodes = new Map<string, NodeProcess>();
  let sender: Instance;
  let receiver: Instance;

  before(async () => {
    await storage.init();
    for (const id of ['t1', 't2']) {
      nodes.set(id, await NodeProcess.start({ id, port: await freePort(), redisUrl, keyPrefix, dir, cluster: TIMING, queue: QUEUE }));
    }
    [sender, receiver] = await createSandboxInstances(nodes.get('t1')!, [...nodes.values()], 2, '551197300000');
  });

  after(() => tearDownCluster({ nodes: nodes.values(), closers: [storage], redisUrl, keyPrefix, dir }));

  it('sends the message within seconds of the new owner taking the instance, not after the queue lease', async () => {
    const owner = (await storage.cluster().owners([sender.id])).get(sender.id)!.node;
    const victim = nodes.get(owner)!;
    const survivor = [...nodes.values()].find((n) => n !== victim)!;
    const sent = await survivor.request('POST', `/${sender.key}/message/text`, { to: receiver.number, text: 'taken over', typing: TYPING_MS });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const id = sent.body.data.key.id as string;
    // Once the owner's worker leased it and is typing it (4 s), kill the owner mid-send.
    await until(async () => (await survivor.request('GET', `/${sender.key}/message/${id}`)).body?.data?.queue?.state === 'sending',
      'the owner to lease the send', 5_000);
    await victim.stop('SIGKILL');
    const killedAt = performance.now();

    await until(async () => (await storedMessageIds(survivor, receiver.key, sender.number).catch(() => new Set<string>())).has(id),
      'the message to reach the receiver', 40_000).catch(async (err: unknown) => {
      // Where the send stands, for whoever reads the failure.
      console.log(JSON.stringify((await survivor.request('GET', `/${sender.key}/queue`)).body));
      throw err;
    });
    const tookMs = performance.now() - killedAt;
    // Cluster lease (3 s) + the new owner's scan and typing again (4 s): far below the send's 120 s queue lease.
    assert.ok(tookMs < 40_000, `arrived ${Math.round(tookMs)} ms after the kill`);
    const takeovers = survivor.logs('outbound sends of the previous owner taken over').filter((l) => l.instance === sender.id);
    assert.deepEqual(takeovers.map((l) => l.released), [1], 'the survivor released the one send the dead owner held');
    const record = await survivor.request('GET', `/${sender.key}/message/${id}`);
    assert.equal(record.status, 200);
    assert.equal(record.body.data.queue, undefined, 'sent: no longer in the queue');
    assert.equal(record.body.data.key.id, id);
    assert.equal((await survivor.request('GET', `/${sender.key}/queue`)).body.total, 0, 'nothing left queued');
  });

  it('an owner paused mid-send (SIGSTOP) and resumed after the take-over leaves the send to the new owner', async () => {
    nodes.set('t3', await NodeProcess.start({ id: 't3', port: await freePort(), redisUrl, keyPrefix, dir, cluster: TIMING, queue: QUEUE }));
    const live = [...nodes.values()].filter((n) => n.child.exitCode === null && n.child.signalCode === null);
    const owner = (await storage.cluster().owners([sender.id])).get(sender.id)!.node;
    const paused = nodes.get(owner)!;
    const other = live.find((n) => n !== paused)!;
    const sent = await other.request('POST', `/${sender.key}/message/text`, { to: receiver.number, text: 'left to the new owner', typing: TYPING_MS });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const id = sent.body.data.key.id as string;
    await until(async () => (await other.request('GET', `/${sender.key}/message/${id}`)).body?.data?.queue?.state === 'sending',
      'the owner to lease the send', 5_000);
    paused.signal('SIGSTOP');
    try {
      // The other node takes the instance once the paused owner's lease expired, and sends the message.
      await until(async () => (await storedMessageIds(other, receiver.key, sender.number).catch(() => new Set<string>())).has(id),
        'the message to reach the receiver', 40_000);
    } finally {
      paused.signal('SIGCONT');
    }
    // Resumed, the old owner ends its typing wait, finds it no longer owns the instance and leaves the send alone.
    await until(async () => paused.logs('instance lost to another node before its send; left to its new owner').some((l) => l.message === id),
      'the resumed owner to leave the send', 15_000);
    assert.equal(paused.logs('outbound send bookkeeping failed').length, 0);
    assert.equal((await other.request('GET', `/${sender.key}/queue`)).body.total, 0, 'nothing left queued');
  });
});
