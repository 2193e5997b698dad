import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RedisStorage } from '@parley/storage-redis';
import { serviceUrlOrSkip, TcpProxy } from '@parley/testkit';
import { CLUSTER_ADMIN_TOKEN, freePort, NodeProcess } from '@parley/testkit/host';
import { createSandboxInstances, tearDownCluster, until, type Instance } from '../support/cluster-load.js';
import { Scrape } from '../support/metrics-scrape.js';

const NODES = ['r1', 'r2'];
/** Short leases: a paused owner's instance is taken over within about 3 s. */
const TIMING = { leaseTtlMs: 3000, renewIntervalMs: 1000, driftMarginMs: 500 };

/**
 * Issue 24 item 2: a request forwarded to an instance's owner is sent again only when that cannot run
 * it twice. Two nodes (the real CLI) on one Redis, each advertised to the other through a TCP proxy of
 * the test's, so the test can hold the owner's answer back and then cut the connection after the owner
 * acted on the request (or stop the owner, SIGSTOP, with its answer held). A send (a route taking an
 * `Idempotency-Key`) is sent again under the internal key it was first forwarded with and answered with
 * the first attempt's result: the recipient gets it once, under one id. A request without such a key
 * that may have run is answered 502 `outcome_unknown`, not run again. A request that provably never
 * reached the owner (its connection refused) is still sent again.
 */
describe('cluster: forwarded requests are never replayed unsafely', () => {
  const redisUrl = serviceUrlOrSkip('REDIS_URL', 'forwarded requests across a cut peer link');
  if (!redisUrl) return;
  const keyPrefix = `parley-test:cluster-replay:${process.pid}-${randomBytes(4).toString('hex')}:`;
  const dir = mkdtempSync(join(tmpdir(), 'parley-cluster-replay-'));
  const storage = new RedisStorage({ url: redisUrl, keyPrefix });
  const nodes = new Map<string, NodeProcess>();
  /** The proxy each node is advertised through (what the other node forwards to). */
  const links = new Map<string, TcpProxy>();
  let alice: Instance;
  let bob: Instance;

  before(async () => {
    await storage.init();
    for (const id of NODES) {
      const port = await freePort();
      const link = new TcpProxy('127.0.0.1', port);
      await link.start();
      links.set(id, link);
      nodes.set(id, NodeProcess.launch({ id, port, redisUrl, keyPrefix, dir, cluster: { ...TIMING, advertiseUrl: `http://127.0.0.1:${link.port}` } }));
    }
    await Promise.all([...nodes.values()].map((n) => n.ready(60_000)));
    [alice, bob] = await createSandboxInstances(nodes.get('r1')!, [...nodes.values()], 2, '551197400000');
  });

  after(async () => {
    for (const node of nodes.values()) node.signal('SIGCONT');
    await tearDownCluster({ nodes: nodes.values(), closers: [...[...links.values()].map((l) => ({ close: () => l.cut() })), storage], redisUrl, keyPrefix, dir });
  });

  /** The owner of alice's instance, the other node (where requests are sent, to be forwarded), and the owner's link. */
  const route = async () => {
    const owner = (await storage.cluster().owners([alice.id])).get(alice.id)!.node;
    return { owner: nodes.get(owner)!, via: [...nodes.values()].find((n) => n.id !== owner)!, link: links.get(owner)! };
  };
  /** Texts bob received from alice (read through any node). */
  const received = async (text: string) => {
    const res = await nodes.get('r1')!.request('GET', `/${bob.key}/chat/${alice.number}/messages?limit=100`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return (res.body.data as { key: { id: string }; message: { extendedTextMessage?: { text: string } } }[])
      .filter((m) => m.message.extendedTextMessage?.text === text).map((m) => m.key.id);
  };
  /** Waits until bob has `text`, then a little more for a second copy that would follow; answers its ids. */
  const receivedOnce = async (text: string) => {
    await until(async () => (await received(text)).length > 0, `bob to receive "${text}"`, 30_000);
    await new Promise((r) => setTimeout(r, 1000));
    return received(text);
  };
  /** Holds the owner's answers until it has written one (it acted on the request), then cuts the link and opens it again. */
  const cutAfterOwnerAnswered = async (link: TcpProxy) => {
    await until(async () => link.heldAnswerBytes() > 0, 'the owner to answer (held back)', 15_000);
    await link.cut();
    await new Promise((r) => setTimeout(r, 300));
    await link.start();
  };

  it('a send whose connection to the owner broke after the owner took it is answered with its first result, and sent once', async () => {
    const { via, link } = await route();
    link.holdAnswers();
    const answer = via.request('POST', `/${alice.key}/message/text`, { to: bob.number, text: 'cut after the owner sent it' });
    await cutAfterOwnerAnswered(link);
    const res = await answer;
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(await receivedOnce('cut after the owner sent it'), [res.body.data.key.id], 'received once, under the id the client was given');
  });

  it('a request without an idempotency key that may have run is answered 502 outcome_unknown, not run again', async () => {
    const { owner, via, link } = await route();
    const policy = { perMinute: 17 };
    link.holdAnswers();
    const answer = via.request('PUT', `/${alice.key}/queue/policy`, policy);
    await cutAfterOwnerAnswered(link);
    const res = await answer;
    assert.equal(res.status, 502, JSON.stringify(res.body));
    assert.equal(res.body.error.code, 'outcome_unknown');
    assert.deepEqual(res.body.error.details, { reason: 'connection_lost', safeRetry: 'Idempotency-Key' });
    assert.match(res.body.error.message, /Idempotency-Key/);
    // It did run: a 503 ("nothing was done") would have been a lie.
    assert.equal((await owner.request('GET', `/${alice.key}/queue/policy`)).body.data.perMinute, 17);
    const metrics = await fetch(`${via.url}/metrics`, { headers: { authorization: `Bearer ${CLUSTER_ADMIN_TOKEN}` } });
    assert.equal((await Scrape.parse(await metrics.text())).value('parley_cluster_forwarded_requests_total', { outcome: 'unknown' }), 1);
  });

  it('a request that never reached the owner (its connection refused) is sent again, once', async () => {
    const { via, link } = await route();
    await link.cut();
    const answer = via.request('POST', `/${alice.key}/message/text`, { to: bob.number, text: 'refused, then sent' });
    await new Promise((r) => setTimeout(r, 400));
    await link.start();
    const res = await answer;
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(await receivedOnce('refused, then sent'), [res.body.data.key.id]);
  });

  it('a send whose owner stopped answering (SIGSTOP) after taking it is answered with its first result by the new owner, and sent once', async () => {
    const { owner, via, link } = await route();
    link.holdAnswers();
    const answer = via.request('POST', `/${alice.key}/message/text`, { to: bob.number, text: 'the owner froze' });
    await until(async () => link.heldAnswerBytes() > 0, 'the owner to answer (held back)', 15_000);
    owner.signal('SIGSTOP');
    try {
      // The forwarding node gives the attempt up once it sees another lease holder, takes the instance
      // (the only other node) and runs the request under its internal key: the first result.
      const res = await answer;
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal((await storage.cluster().owners([alice.id])).get(alice.id)?.node, via.id);
      owner.signal('SIGCONT');
      await link.restore();
      assert.deepEqual(await receivedOnce('the owner froze'), [res.body.data.key.id]);
    } finally {
      owner.signal('SIGCONT');
    }
  });
});
