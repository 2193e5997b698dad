import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { RedisStorage } from '@parley/storage-redis';
import { serviceUrlOrSkip } from '@parley/testkit';
import { CLUSTER_ADMIN_TOKEN, freePort, NodeProcess } from '@parley/testkit/host';
import { createSandboxInstances, tearDownCluster, until, type Instance } from '../support/cluster-load.js';
import { assertMetricsDocumented, Scrape } from '../support/metrics-scrape.js';

const NODES = ['m1', 'm2'];
/** Short leases, so that a paused owner loses its instances within seconds (6000 > 2 × 1000 + 500). */
const TIMING = { leaseTtlMs: 6000, renewIntervalMs: 1000, driftMarginMs: 500 };
/** Generous bounds: nodes share two cores with other suites. */
const SETTLE_MS = 30_000;

const FORWARDED = 'parley_cluster_forwarded_requests_total';
const OWNED = 'parley_cluster_instances_owned';
const TAKES = 'parley_cluster_lease_takes_total';
const LOSSES = 'parley_cluster_lease_losses_total';
const HANDOVERS = 'parley_cluster_handovers_total';
const WAIT = 'parley_cluster_handover_wait_seconds';
const PEER_FAILURES = 'parley_cluster_peer_auth_failures_total';
const REFUSED = 'forwarded request refused: wrong or missing cluster secret';

/**
 * Two Parley nodes as separate processes on one Redis, scraped on `GET /metrics`: the cluster gauges
 * match `GET /admin/cluster` and the leases in Redis, and the counters match what the nodes did — the
 * requests forwarded to an owner, forged forwarded requests, a move, a paused owner's lost leases and
 * the wait of a request meanwhile, a drain — exactly, and as the nodes' own log lines count it.
 */
describe('cluster: Prometheus metrics of the nodes', () => {
  const redisUrl = serviceUrlOrSkip('REDIS_URL', 'cluster metrics');
  if (!redisUrl) return;
  const keyPrefix = `parley-test:cluster-metrics:${process.pid}-${randomBytes(4).toString('hex')}:`;
  const dir = mkdtempSync(join(tmpdir(), 'parley-cluster-metrics-'));
  const nodes = new Map<string, NodeProcess>();
  const storage = new RedisStorage({ url: redisUrl, keyPrefix });
  let instances: Instance[] = [];
  const node = (id: string) => nodes.get(id)!;

  const scrape = async (id: string): Promise<Scrape> => {
    const res = await fetch(`${node(id).url}/metrics`, { headers: { authorization: `Bearer ${CLUSTER_ADMIN_TOKEN}` } });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    return Scrape.parse(text);
  };
  /** The first scrape of `id` that passes `check` (bounded). */
  const scrapeUntil = async (id: string, check: (s: Scrape) => boolean, what: string): Promise<Scrape> => {
    const found: Scrape[] = [];
    await until(async () => {
      const s = await scrape(id);
      if (check(s)) found.push(s);
      return found.length > 0;
    }, what, SETTLE_MS);
    return found[0]!;
  };
  const nodeStates = (s: Scrape) => ['alive', 'draining', 'dead'].map((state) => s.value('parley_cluster_nodes', { state }));
  /** Instances by owning node, read from their leases in Redis. */
  const owned = async (): Promise<Map<string, Instance[]>> => {
    const leases = await storage.cluster().owners(instances.map((i) => i.id));
    const out = new Map(NODES.map((n) => [n, [] as Instance[]]));
    for (const i of instances) if (leases.has(i.id)) out.get(leases.get(i.id)!.node)?.push(i);
    return out;
  };
  const send = async (via: string, from: Instance, to: Instance, text: string) => {
    const res = await node(via).request('POST', `/${from.key}/message/text`, { to: to.number, text });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };
  const losses = (s: Scrape) => s.value(LOSSES);
  const handOvers = (s: Scrape) => s.value(HANDOVERS);

  /**
   * What `id`'s log lines count, as its counters should: leases taken and lost, instances handed
   * over (a drain's and a move's), refused forwarded requests.
   */
  const logged = (id: string) => {
    const sum = (msg: string, count: (line: Record<string, any>) => number) => node(id).logs(msg).reduce((n, l) => n + count(l), 0);
    return {
      [TAKES]: node(id).logs('instance lease taken').length,
      expired: node(id).logs('lease could not be renewed in time; instance stopped on this node').length,
      lost: node(id).logs('lease lost to another node; instance stopped on this node').length,
      move: sum('instances moved to other nodes', (l) => l.instances.length),
      drain: sum('instances handed over to the other nodes', (l) => l.instances),
      [PEER_FAILURES]: sum(REFUSED, (l) => l.refused),
    };
  };

  /**
   * Waits until every node is at rest and consistent: its owned gauge equals its count in
   * `GET /admin/cluster` and its leases in Redis, leases taken minus lost minus handed over equal the
   * leases held, and its counters equal what its log lines count. Answers the last scrapes.
   */
  const settled = async (): Promise<Map<string, Scrape>> => {
    const scrapes = new Map<string, Scrape>();
    let last = '';
    await until(async () => {
      const byNode = await owned();
      for (const id of NODES) {
        const s = await scrape(id);
        const admin = (await node(id).request('GET', '/admin/cluster', undefined, {}, true)).body.data.nodes as { id: string; instances: number }[];
        const seen = {
          gauge: s.value(OWNED), admin: admin.find((n) => n.id === id)?.instances, redis: byNode.get(id)!.length,
          held: s.value(TAKES) - losses(s) - handOvers(s),
          [TAKES]: s.value(TAKES), expired: s.value(LOSSES, { reason: 'expired' }), lost: s.value(LOSSES, { reason: 'lost' }),
          move: s.value(HANDOVERS, { reason: 'move' }), drain: s.value(HANDOVERS, { reason: 'drain' }), [PEER_FAILURES]: s.value(PEER_FAILURES),
        };
        const want = { ...seen, admin: seen.gauge, redis: seen.gauge, held: seen.gauge, ...logged(id) };
        last = `${id}: ${JSON.stringify(seen)} want ${JSON.stringify(want)}`;
        if (JSON.stringify(seen) !== JSON.stringify(want)) return false;
        scrapes.set(id, s);
      }
      return true;
    }, 'the nodes to be at rest with consistent metrics', SETTLE_MS).catch((err: Error) => assert.fail(`${err.message}; last: ${last}`));
    return scrapes;
  };

  before(async () => {
    await storage.init();
    for (const id of NODES) nodes.set(id, NodeProcess.launch({ id, port: await freePort(), redisUrl, keyPrefix, dir, cluster: TIMING }));
    await Promise.all([...nodes.values()].map((n) => n.ready(60_000)));
    instances = await createSandboxInstances(node('m1'), NODES.map(node), 4, '551197400000');
    // Placed on the least-loaded node as they connect: each node owns some.
    await until(async () => [...(await owned()).values()].every((mine) => mine.length > 0), 'each node owns an instance', SETTLE_MS);
  });

  after(() => tearDownCluster({ nodes: nodes.values(), closers: [storage], redisUrl, keyPrefix, dir }));

  it('shows the leases each node holds as GET /admin/cluster does, every lease taken, and both nodes alive', async () => {
    const scrapes = await settled();
    for (const id of NODES) {
      const s = scrapes.get(id)!;
      assert.ok(s.value(OWNED) > 0, id);
      assert.deepEqual(nodeStates(s), [2, 0, 0], id);
      assertMetricsDocumented(s);
      for (const outcome of ['answered', 'retry', 'unavailable']) assert.equal(s.samples(FORWARDED, { outcome }).length, 1, `${id} ${outcome} series from the start`);
    }
    assert.equal(NODES.reduce((sum, id) => sum + scrapes.get(id)!.value(OWNED), 0), instances.length);
  });

  it('counts each request forwarded to the owner once, none served by the owner itself, and each forged forwarded request', async () => {
    const byNode = await owned();
    const [a, b] = [byNode.get('m1')![0]!, byNode.get('m2')![0]!];
    const before = new Map(await Promise.all(NODES.map(async (id) => [id, await scrape(id)] as const)));
    for (let i = 0; i < 3; i++) await send('m2', a, b, `via the other node ${i}`);
    for (let i = 0; i < 2; i++) await send('m1', a, b, `via the owner ${i}`);
    // Claiming to come from m2, without the cluster secret or with a wrong one: refused by m1.
    for (const secret of [{}, { 'x-parley-cluster-secret': 'not-the-cluster-secret-0000' }] as Record<string, string>[]) {
      const res = await node('m1').request('POST', `/${a.key}/message/text`, { to: b.number, text: 'forged' }, { 'x-parley-forwarded-by': 'm2', ...secret });
      assert.equal(res.status, 401, JSON.stringify(res.body));
    }
    const now = await settled();
    const moved = (id: string, name: string, labels: Record<string, string> = {}) => now.get(id)!.value(name, labels) - before.get(id)!.value(name, labels);
    assert.equal(moved('m2', FORWARDED, { outcome: 'answered' }), 3);
    assert.equal(moved('m2', FORWARDED, { outcome: 'unavailable' }), 0);
    assert.equal(moved('m1', FORWARDED), 0, 'the owner forwarded nothing');
    assert.equal(moved('m1', PEER_FAILURES), 2);
    assert.equal(moved('m2', PEER_FAILURES), 0);
  });

  it('logs a flood of forged forwarded requests a line a second, each line counting the refusals it stands for', async () => {
    const [a, b] = [instances[0]!, instances[1]!];
    const before = await scrape('m2');
    const linesBefore = node('m2').logs(REFUSED).length;
    const began = performance.now();
    // Fewer than the failure limiter's 50 a minute (shared by the nodes through Redis): every one is a 401, not a 429.
    const answers = await Promise.all(Array.from({ length: 30 }, () => node('m2').request('POST', `/${a.key}/message/text`, { to: b.number, text: 'forged' }, { 'x-parley-forwarded-by': 'm1' })));
    const seconds = (performance.now() - began) / 1000;
    assert.deepEqual([...new Set(answers.map((r) => r.status))], [401]);
    const now = await settled();
    assert.equal(now.get('m2')!.value(PEER_FAILURES) - before.value(PEER_FAILURES), 30);
    const lines = node('m2').logs(REFUSED).slice(linesBefore);
    assert.equal(lines.reduce((n, l) => n + l.refused, 0), 30, 'every refusal is counted by a line');
    // One line at once, then at most one a second (the last written when its second ended).
    assert.ok(lines.length <= Math.ceil(seconds) + 2, `${lines.length} lines for 30 refusals in ${seconds.toFixed(1)} s`);
    assert.ok(lines.length < 30);
    assert.deepEqual(Object.keys(lines[0]!).filter((k) => ['from', 'address', 'route'].includes(k)), ['from', 'address', 'route']);
    assert.equal(lines[0]!.route, '/:key/message/text');
  });

  it('counts a move as one hand-over of the old owner and one lease taken by the new one', async () => {
    const byNode = await owned();
    // From the node owning more (no rebalance follows), to the other.
    const [from, to] = byNode.get('m1')!.length >= byNode.get('m2')!.length ? ['m1', 'm2'] : ['m2', 'm1'];
    const x = byNode.get(from)![0]!;
    const before = await settled();
    const res = await node(to).request('POST', `/admin/instances/${x.id}/move`, { node: to }, {}, true);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await until(async () => (await owned()).get(to)!.includes(x), 'the instance reaches its new node', SETTLE_MS);
    const now = await settled();
    const moved = (id: string, name: string, labels: Record<string, string> = {}) => now.get(id)!.value(name, labels) - before.get(id)!.value(name, labels);
    assert.deepEqual([moved(from, HANDOVERS, { reason: 'move' }), moved(from, HANDOVERS), moved(from, TAKES), moved(from, OWNED)], [1, 1, 0, -1]);
    assert.deepEqual([moved(to, HANDOVERS), moved(to, TAKES), moved(to, OWNED)], [0, 1, 1]);
    for (const id of NODES) assert.equal(moved(id, LOSSES), 0, id);
  });

  it('counts a paused owner\'s leases as lost when it wakes, and the wait and retried attempt of a request sent meanwhile; lists it dead', async () => {
    const byNode = await owned();
    const [paused, other] = byNode.get('m2')!.length > 0 ? ['m2', 'm1'] : ['m1', 'm2'];
    const held = byNode.get(paused)!;
    const before = await settled();
    node(paused).signal('SIGSTOP');
    let during: Scrape;
    try {
      // Forwarded to the paused owner, abandoned once its lease moved on, then served by the other node.
      await send(other, held[0]!, instances.find((i) => i !== held[0])!, 'while paused');
      await until(async () => (await owned()).get(other)!.length === instances.length, 'the other node owns every instance', SETTLE_MS);
      during = await scrapeUntil(other, (s) => nodeStates(s)[2] === 1, 'the paused node listed dead');
    } finally {
      node(paused).signal('SIGCONT');
    }
    const moved = (now: Scrape, id: string, name: string, labels: Record<string, string> = {}) => now.value(name, labels) - before.get(id)!.value(name, labels);
    assert.deepEqual(nodeStates(during), [1, 0, 1]);
    assert.equal(moved(during, other, TAKES), held.length);
    assert.equal(moved(during, other, OWNED), held.length);
    assert.ok(moved(during, other, FORWARDED, { outcome: 'retry' }) >= 1, 'the abandoned attempt');
    assert.equal(moved(during, other, FORWARDED, { outcome: 'answered' }), 0);
    assert.equal(during.count(WAIT) - before.get(other)!.count(WAIT), 1, 'one request waited');
    const waited = (during.samples(WAIT)[0] as { sum?: number }).sum! - (before.get(other)!.samples(WAIT)[0] as { sum?: number }).sum!;
    assert.ok(waited >= 1 && waited < SETTLE_MS / 1000, `waited ${waited} s`);

    // Awake, it stops the instances it lost (their deadlines passed, or a renewal found them taken) and serves again.
    await until(async () => losses(await scrape(paused)) - losses(before.get(paused)!) === held.length, 'the woken node counts its lost leases', SETTLE_MS);
    await until(async () => [...(await owned()).values()].every((mine) => mine.length > 0), 'rebalanced: each node owns an instance again', SETTLE_MS);
    await settled();
    for (const id of NODES) {
      await scrapeUntil(id, (s) => nodeStates(s)[0] === 2, `${id} sees both nodes alive again`);
    }
  });

  it('counts a drain\'s hand-overs and shows the node draining on both nodes', async () => {
    const before = await settled();
    const res = await node('m2').request('POST', '/admin/cluster/nodes/m1/drain', { draining: true }, {}, true);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await until(async () => (await owned()).get('m2')!.length === instances.length, 'm2 owns every instance', SETTLE_MS);
    const now = await settled();
    const drained = now.get('m1')!.value(HANDOVERS, { reason: 'drain' }) - before.get('m1')!.value(HANDOVERS, { reason: 'drain' });
    assert.equal(drained, before.get('m1')!.value(OWNED));
    assert.ok(drained > 0);
    assert.equal(now.get('m1')!.value(OWNED), 0);
    assert.equal(now.get('m2')!.value(OWNED), instances.length);
    for (const id of NODES) assert.deepEqual(nodeStates(await scrapeUntil(id, (s) => nodeStates(s)[1] === 1, `${id} sees m1 draining`)), [1, 1, 0], id);
  });
});
