import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { crc32, deflateSync } from 'node:zlib';
import { startHttpReceiver, type HttpReceiver } from '@parley/testkit';
import { CLUSTER_SECRET, freePort, NodeProcess } from '@parley/testkit/host';
import { clusterLoad, createSandboxInstances, storedMessageIds, tearDownCluster, until, untilAllStored, type Instance } from '../support/cluster-load.js';
import { clusterBackends, openClusterBackend, type ClusterBackend } from '../support/cluster-backends.js';
import { assertOneLinkAtATime, untilNoEventLost, watchNodeListing, type Death } from '../support/cluster-invariants.js';

/** A dead node stays listed this long after its last heartbeat (short, so the test sees it pruned). */
const DEAD_NODE_RETENTION_MS = 12_000;

/** A valid 1×1 PNG carrying `padding` bytes of text (a picture larger than the 1 MiB a forwarder keeps in memory). */
function largePng(padding: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type), data])));
    return Buffer.concat([head, Buffer.from(type), data, crc]);
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr),
    chunk('tEXt', Buffer.concat([Buffer.from('Comment\0'), Buffer.alloc(padding, 'x')])),
    chunk('IDAT', deflateSync(Buffer.from([0, 255, 0, 0, 255]))), chunk('IEND', Buffer.alloc(0)),
  ]);
}

/**
 * Three Parley nodes as separate processes (the real CLI) on one shared store, Redis and then
 * PostgreSQL: instances created through node 1 are served through every node, forwarded requests need
 * the cluster secret, a SIGKILLed owner's instances serve again elsewhere within 15 s without losing an
 * accepted send, a graceful stop hands instances over with no failed request through the other nodes,
 * and an owner paused past its lease never writes again.
 */
for (const backendName of clusterBackends('cluster of three nodes')) describe(`cluster: three nodes on one ${backendName}`, () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-cluster-'));
  const nodes = new Map<string, NodeProcess>();
  const ports = new Map<string, number>();
  let backend: ClusterBackend;
  let storage: ClusterBackend['storage'];
  let receiver: HttpReceiver;
  const instances: Instance[] = [];
  /** Processes the test killed (their sandbox links ended then). */
  const deaths: Death[] = [];

  const start = async (id: string) => {
    // Kept before it is ready: a node that never gets ready is still stopped after the tests.
    const node = NodeProcess.launch({ id, port: ports.get(id)!, ...backend.node, dir, cluster: { deadNodeRetentionMs: DEAD_NODE_RETENTION_MS } });
    nodes.set(id, node);
    await node.ready();
    return node;
  };
  const node = (id: string) => nodes.get(id)!;
  const owners = async () => new Map([...(await backend.cluster.owners(instances.map((i) => i.id)))].map(([id, lease]) => [id, lease.node]));

  before(async () => {
    backend = await openClusterBackend(backendName, 'cluster');
    storage = backend.storage;
    receiver = await startHttpReceiver();
    for (const id of ['n1', 'n2', 'n3']) ports.set(id, await freePort());
    for (const id of ['n1', 'n2', 'n3']) await start(id);
  });

  after(() => tearDownCluster({ nodes: nodes.values(), closers: [receiver, backend], dir }));

  it('refuses to start a second process with a node id in use, naming the field', async () => {
    const twin = NodeProcess.launch({ id: 'n2', port: await freePort(), ...backend.node, dir: join(dir, 'twin') });
    assert.equal(await twin.exit(), 1);
    assert.ok(twin.lines.some((l) => l.includes('cluster.nodeId (PARLEY_NODE_ID) "n2" is in use by another live node')), twin.lines.join('\n'));
  });

  it('places instances created through node 1 on every node and serves them through any node', async () => {
    const via = ['n1', 'n2', 'n3'];
    // Connected and scanned through the other nodes: the requests reach the owner.
    instances.push(...await createSandboxInstances(node('n1'), [node('n1'), node('n2'), node('n3')], 6, '551197100000', `${receiver.url}/hook`));
    const placed = await owners();
    assert.equal(placed.size, 6);
    assert.deepEqual(new Set(placed.values()), new Set(['n1', 'n2', 'n3']), 'new instances go to the least-loaded node');
    for (const instance of instances) {
      const answers = await Promise.all(via.map((n) => node(n).request('GET', `/${instance.key}/instance`)));
      for (const answer of answers) assert.equal(answer.body.instance.phoneConnected, true, JSON.stringify(answer.body));
      assert.deepEqual(answers[1], answers[0]);
      assert.deepEqual(answers[2], answers[0]);
    }
    // Sends through every node; each event reaches the webhook once, whichever node delivers it.
    const sent: string[] = [];
    for (const [i, instance] of instances.entries()) {
      const to = instances[(i + 1) % instances.length]!.number;
      const res = await node(via[i % 3]!).request('POST', `/${instance.key}/message/text`, { to, text: `hello ${i}` });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      sent.push(res.body.data.key.id as string);
    }
    await receiver.waitFor(12, 15_000);
    await new Promise((r) => setTimeout(r, 1000));
    const ids = receiver.requests.map((r) => (JSON.parse(r.body.toString()) as { id: string }).id);
    assert.equal(new Set(ids).size, ids.length, 'no event delivered twice');
    for (const [i, instance] of instances.entries()) {
      assert.ok((await storedMessageIds(node('n3'), instance.key, instances[(i + 1) % instances.length]!.number)).has(sent[i]!));
    }
    // The receiving phones got them, also those owned by another node than the sender (the sandbox
    // network spans the nodes through the store's signals).
    for (const [i, instance] of instances.entries()) {
      const peer = instances[(i + 1) % instances.length]!;
      await until(async () => (await storedMessageIds(node('n1'), peer.key, instance.number)).has(sent[i]!), `message ${i} reached ${peer.number}`);
    }
    assert.ok(instances.some((instance, i) => placed.get(instance.id) !== placed.get(instances[(i + 1) % instances.length]!.id)), 'some sends cross nodes');
  });

  it('streams media both ways through forwarding nodes: a 1.2 MiB picture up through one, down through another, byte for byte', async () => {
    const instance = instances[2]!;
    const owner = (await owners()).get(instance.id)!;
    const [up, down] = ['n1', 'n2', 'n3'].filter((n) => n !== owner);
    const png = largePng(1_200_000);
    const put = await node(up!).request('PUT', `/${instance.key}/instance/profile/picture`, { url: `data:image/png;base64,${png.toString('base64')}` });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const got = await fetch(`${node(down!).url}/${instance.key}/instance/profile/picture`);
    assert.equal(got.status, 200);
    assert.equal(got.headers.get('content-type'), 'image/png');
    assert.ok(Buffer.from(await got.arrayBuffer()).equals(png), 'the owner\'s bytes, unchanged');
  });

  it('refuses a forwarded request with a wrong or missing cluster secret (401, logged)', async () => {
    const { key } = instances[0]!;
    const wrong = await node('n2').request('GET', `/${key}/instance`, undefined, { 'x-parley-forwarded-by': 'n1', 'x-parley-cluster-secret': 'not-the-secret-000000' });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error.code, 'unauthorized');
    const missing = await node('n3').request('GET', `/${key}/instance`, undefined, { 'x-parley-forwarded-by': 'n1' });
    assert.equal(missing.status, 401);
    assert.ok(node('n2').logs('forwarded request refused: wrong or missing cluster secret').length >= 1);
    assert.ok(node('n3').logs('forwarded request refused: wrong or missing cluster secret').length >= 1);
    const right = await node('n2').request('GET', `/${key}/instance`, undefined, { 'x-parley-forwarded-by': 'n1', 'x-parley-cluster-secret': CLUSTER_SECRET });
    assert.ok([200, 503].includes(right.status), 'the right secret is accepted (served, or 503 instance_moving when another node owns it)');
  });

  it('admin API: lists the nodes and owners, moves an instance, drains a node and takes it back', async () => {
    const cluster = await node('n2').request('GET', '/admin/cluster', undefined, {}, true);
    assert.equal(cluster.status, 200);
    assert.equal(cluster.body.data.enabled, true);
    assert.equal(cluster.body.data.node, 'n2');
    assert.deepEqual(cluster.body.data.nodes.map((n: any) => [n.id, n.alive, n.draining, n.address]), ['n1', 'n2', 'n3'].map((id) => [id, true, false, node(id).url]));
    assert.equal(cluster.body.data.nodes.reduce((sum: number, n: any) => sum + n.instances, 0), instances.length);
    const listed = await node('n3').request('GET', '/admin/instances', undefined, {}, true);
    const placed = await owners();
    for (const item of listed.body.data as { id: string; owner: string }[]) assert.equal(item.owner, placed.get(item.id));
    const one = await node('n2').request('GET', `/admin/instances/${instances[1]!.id}`, undefined, {}, true);
    assert.equal(one.body.data.owner, placed.get(instances[1]!.id), 'one instance names its owner as the list does');
    // Move the first instance to another node, through a third node.
    const moving = instances[0]!;
    const to = ['n1', 'n2', 'n3'].find((n) => n !== placed.get(moving.id))!;
    const moved = await node('n1').request('POST', `/admin/instances/${moving.id}/move`, { node: to }, {}, true);
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.deepEqual(moved.body.data, { instance: moving.id, from: placed.get(moving.id), to });
    await until(async () => (await owners()).get(moving.id) === to, 'the instance reaches its new node');
    const served = await node('n1').request('POST', `/${moving.key}/message/text`, { to: instances[1]!.number, text: 'after the move' });
    assert.equal(served.status, 200, JSON.stringify(served.body));
    const bad = await node('n1').request('POST', `/admin/instances/${moving.id}/move`, { node: 'nope' }, {}, true);
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /body\.node "nope"/);
    // Drain n3 through n1: it hands everything over and takes nothing; then back into service.
    const drained = await node('n1').request('POST', '/admin/cluster/nodes/n3/drain', { draining: true }, {}, true);
    assert.deepEqual(drained.body.data, { node: 'n3', draining: true });
    await until(async () => ![...(await owners()).values()].includes('n3'), 'n3 holds no instance');
    for (const instance of instances) assert.equal((await node('n3').request('GET', `/${instance.key}/instance`)).body.instance.phoneConnected, true);
    const back = await node('n2').request('POST', '/admin/cluster/nodes/n3/drain', { draining: false }, {}, true);
    assert.deepEqual(back.body.data, { node: 'n3', draining: false });
    assert.equal((await node('n2').request('POST', '/admin/cluster/nodes/n9/drain', {}, {}, true)).status, 404);
  });

  it('SIGKILL of an owner under load: all serve again within 15 s, no accepted send or webhook event lost, never two owners', async () => {
    const before = await backend.cluster.owners(instances.map((i) => i.id));
    const victim = node('n1');
    const survivors = ['n2', 'n3'];
    const victims = instances.filter((i) => before.get(i.id)?.node === victim.id);
    assert.ok(victims.length > 0);
    const since = Date.now();
    const load = clusterLoad(instances, survivors.map(node));
    await new Promise((r) => setTimeout(r, 500));
    const killedAt = performance.now();
    await victim.stop('SIGKILL');
    deaths.push({ pid: victim.child.pid!, at: Date.now() });
    nodes.delete(victim.id);
    const listing = watchNodeListing(node('n2'), victim.id, 40_000);
    listing.catch(() => undefined); // awaited below; a failure before then must not be an unhandled rejection
    const back = await load.untilEachServedAfter(victims, killedAt, 20_000).finally(() => load.stop());
    const results = await load.stop();
    const worst = Math.max(...back.values());
    assert.ok(worst < 15_000, `every instance served again within 15 s (worst ${Math.round(worst)} ms)`);
    assert.deepEqual(results.failures, [], 'no request failed during the failover');
    // Every accepted send is stored by its sender and reached its peer; every event arrived at the webhook.
    await untilAllStored(node('n2'), instances, results.accepted, load.peerOf);
    await untilNoEventLost(receiver, storage, instances, results.accepted, load.peerOf, since);
    // Never two owners, from the fencing tokens: the takes of each instance, in the order they happened on
    // any node, have strictly increasing tokens; the dead owner's token can no longer write.
    const takes = [victim, node('n2'), node('n3')].flatMap((n) => n.logs('instance lease taken'));
    for (const instance of victims) {
      await until(async () => (await owners()).has(instance.id), `${instance.id} has an owner`);
      const lease = (await backend.cluster.owners([instance.id])).get(instance.id)!;
      assert.notEqual(lease.node, victim.id);
      const tokens = takes.filter((t) => t.instance === instance.id).sort((a, b) => a.time.localeCompare(b.time)).map((t) => t.fencingToken as number);
      assert.ok(tokens.includes(lease.token), `the current owner's take of ${instance.id} is logged`);
      for (let i = 1; i < tokens.length; i++) assert.ok(tokens[i]! > tokens[i - 1]!, `tokens of successive owners of ${instance.id} increase: ${tokens}`);
      const old = { instance: instance.id, token: before.get(instance.id)!.token };
      await assert.rejects(storage.state.put(`${instance.id}:sandbox`, 'probe', 1, old), (err: any) => err.code === 'lease_lost');
    }
    // Never two owners, from the sandbox's own record: no phone had two live links to the network at once,
    // and each of the dead node's phones came back on a survivor.
    const links = await assertOneLinkAtATime(storage, instances.map((i) => i.number), [...nodes.values()], deaths);
    for (const instance of victims) {
      const mine = links.get(instance.number)!;
      const lost = mine.filter((l) => l.pid === victim.child.pid).at(-1);
      assert.ok(lost && mine.some((l) => l.pid !== victim.child.pid && l.openedAt >= lost.openedAt), `${instance.number} came back on a survivor`);
    }
    // The dead node was listed dead with its last heartbeat, then pruned once it outlived the retention.
    const { seen, goneAt } = await listing;
    const dead = seen.find((e) => !e.alive);
    assert.ok(dead && dead.lastHeartbeat <= deaths.at(-1)!.at, `listed as dead with its last heartbeat: ${JSON.stringify(seen.slice(-3))}`);
    assert.ok(goneAt && goneAt >= dead.lastHeartbeat + DEAD_NODE_RETENTION_MS, 'pruned after the retention, not before');
    assert.ok(survivors.some((n) => node(n).logs('dead node pruned from the registry').some((l) => l.deadNode === victim.id)));
  });

  it('rolling restart under load: graceful stops hand instances over, 0 non-2xx, no accepted send or webhook event lost', async () => {
    await start('n1');
    const all = ['n1', 'n2', 'n3'];
    const since = Date.now();
    const accepted = new Map<string, string[]>();
    for (const restarting of all) {
      const others = all.filter((n) => n !== restarting).map(node);
      const load = clusterLoad(instances, others);
      await new Promise((r) => setTimeout(r, 300));
      const stopped = node(restarting);
      const handedBefore = stopped.logs('instances handed over to the other nodes').length;
      try {
        assert.equal(await stopped.stop('SIGTERM'), 0);
        await new Promise((r) => setTimeout(r, 1000));
        await start(restarting);
      } finally {
        await load.stop();
      }
      const results = await load.stop();
      assert.equal(stopped.logs('instances handed over to the other nodes').length, handedBefore + 1);
      assert.deepEqual(results.failures, [], `no failed request while ${restarting} restarted`);
      assert.ok(results.ok > 0);
      for (const [id, sent] of results.accepted) accepted.set(id, [...(accepted.get(id) ?? []), ...sent]);
    }
    const peerOf = (i: Instance) => instances[(instances.indexOf(i) + 1) % instances.length]!;
    await untilAllStored(node('n2'), instances, accepted, peerOf);
    await untilNoEventLost(receiver, storage, instances, accepted, peerOf, since);
    // Over the whole run so far (moves, drain, the kill, the restarts), no phone had two live links at once.
    await assertOneLinkAtATime(storage, instances.map((i) => i.number), [...nodes.values()], deaths);
  });

  it('a paused owner (SIGSTOP past its lease) stops its instances when it wakes and its old lease never writes again', async () => {
    // Right after the restarts a rebalance may have the instance between two nodes: wait for its owner.
    await until(async () => (await owners()).has(instances[0]!.id), 'the instance has an owner');
    const current = await owners();
    const owner = current.get(instances[0]!.id)!;
    const mine = instances.filter((i) => current.get(i.id) === owner);
    const other = ['n1', 'n2', 'n3'].find((n) => n !== owner)!;
    node(owner).signal('SIGSTOP');
    try {
      // Served again by another node once the lease expired.
      const res = await node(other).request('POST', `/${mine[0]!.key}/message/text`, { to: instances[1]!.number, text: 'while paused' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    } finally {
      node(owner).signal('SIGCONT');
    }
    await new Promise((r) => setTimeout(r, 1500));
    const stopped = node(owner).logs('lease could not be renewed in time; instance stopped on this node').map((l) => l.instance);
    const lost = node(owner).logs('lease lost to another node; instance stopped on this node').map((l) => l.instance);
    assert.ok([...stopped, ...lost].includes(mine[0]!.id), 'the woken owner stopped the instance');
    const lease = (await backend.cluster.owners([mine[0]!.id])).get(mine[0]!.id)!;
    // The paused owner's token can no longer write the instance's channel state: another node took the
    // instance with a greater token while it slept (a rebalance may later give it back, with a new token).
    const old = node(owner).logs('instance lease taken').filter((l) => l.instance === mine[0]!.id && l.fencingToken < lease.token).at(-1)!;
    const taken = ['n1', 'n2', 'n3'].filter((n) => n !== owner).flatMap((n) => node(n).logs('instance lease taken'))
      .filter((l) => l.instance === mine[0]!.id && l.fencingToken > old.fencingToken);
    assert.ok(taken.length > 0, 'another node took the instance with a greater token');
    assert.ok(old.fencingToken < lease.token);
    await assert.rejects(storage.state.put(`${mine[0]!.id}:sandbox`, 'probe', 1, { instance: mine[0]!.id, token: old.fencingToken }), (err: any) => err.code === 'lease_lost');
  });
});
