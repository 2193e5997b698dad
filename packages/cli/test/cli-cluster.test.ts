import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { deleteKeys } from '@parley/storage-redis/testing';
import { eventually, serviceUrlOrSkip } from '@parley/testkit';
import { CLUSTER_ADMIN_TOKEN, freePort, NodeProcess } from '@parley/testkit/host';
import { startCliHost, type CliHost } from './host.js';
import { runParley } from './parley-process.js';

/** Bound of every wait of these tests: generous, for a loaded 2-core machine. */
const WAIT_S = 90;
const ISO = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z';

interface Instance {
  id: string;
  key: string;
  name: string;
}

interface ClusterData {
  enabled: boolean;
  node?: string;
  nodes: { id: string; address: string; alive: boolean; draining: boolean; instances: number; load: number }[];
}

/**
 * `parley cluster status|drain|resume` and `parley instances move` against two real nodes (the
 * server's CLI in child processes) on one Redis prefix, with connected sandbox instances. Rebalancing
 * is off (`movesPerMinute: 0`) so that an instance stays where a command put it.
 */
describe('parley cluster and instances move: two nodes on one Redis', { timeout: 600_000 }, () => {
  const redisUrl = serviceUrlOrSkip('REDIS_URL', 'parley cluster commands against two nodes');
  if (!redisUrl) return;
  const keyPrefix = `parley-test:cli-cluster:${process.pid}-${randomBytes(4).toString('hex')}:`;
  const dir = mkdtempSync(join(tmpdir(), 'parley-cli-cluster-'));
  const cwd = mkdtempSync(join(tmpdir(), 'parley-cli-cwd-'));
  const nodes = new Map<string, NodeProcess>();
  const instances: Instance[] = [];

  const node = (id: string) => nodes.get(id)!;
  const other = (id: string) => (id === 'n1' ? 'n2' : 'n1');
  /** `parley <args>` against node `via`. */
  const parley = (via: string, ...args: string[]) =>
    runParley(['--url', node(via).url, '--token', CLUSTER_ADMIN_TOKEN, ...args], { cwd, timeoutMs: (WAIT_S + 30) * 1000 });
  const owners = async () => {
    const listed = await node('n1').request('GET', '/admin/instances', undefined, {}, true);
    return new Map((listed.body.data as { id: string; owner: string | null }[]).map((i) => [i.id, i.owner]));
  };
  const cluster = async () => (await node('n2').request('GET', '/admin/cluster', undefined, {}, true)).body.data as ClusterData;
  const connected = async (instance: Instance) => (await node('n2').request('GET', `/${instance.key}/instance`)).body?.instance?.phoneConnected === true;
  /** Polls (every 200 ms, at most {@link WAIT_S}) until `condition` holds. */
  const until = async (condition: () => Promise<boolean>, what: string) => assert.ok(await eventually(condition, WAIT_S * 5, 200), `timed out: ${what}`);

  before(async () => {
    for (const id of ['n1', 'n2']) {
      const launched = NodeProcess.launch({ id, port: await freePort(), redisUrl, keyPrefix, dir, cluster: { movesPerMinute: 0 } });
      nodes.set(id, launched);
      await launched.ready();
    }
    for (const [i, name] of ['c0', 'c1'].entries()) {
      const created = await node('n1').request('POST', '/admin/instances', { channel: 'sandbox', name, options: { number: `55119640000${i}` } }, {}, true);
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const { id, key } = created.body.data as Instance;
      assert.equal((await node('n2').request('POST', `/${key}/instance`)).status, 200);
      assert.equal((await node('n1').request('POST', `/sandbox/${key}/scan`)).status, 200);
      instances.push({ id, key, name });
    }
    for (const instance of instances) await until(() => connected(instance), `${instance.name} connected`);
  });

  after(async () => {
    await Promise.all([...nodes.values()].map((n) => n.stop('SIGKILL')));
    await deleteKeys(redisUrl, keyPrefix);
    rmSync(dir, { recursive: true, force: true });
    rmSync(cwd, { recursive: true, force: true });
  });

  it('cluster status lists both nodes, alive, with their instances and load; --json is the API\'s data', async () => {
    const json = await parley('n2', '--json', 'cluster', 'status');
    assert.equal(json.code, 0, json.stderr);
    const data = JSON.parse(json.stdout) as ClusterData;
    assert.equal(data.enabled, true);
    assert.equal(data.node, 'n2', 'the node that answered');
    assert.deepEqual(data.nodes.map((n) => [n.id, n.address, n.alive, n.draining]), ['n1', 'n2'].map((id) => [id, node(id).url, true, false]));
    assert.equal(data.nodes.reduce((sum, n) => sum + n.instances, 0), 2);

    const text = await parley('n1', 'cluster', 'status');
    assert.equal(text.code, 0, text.stderr);
    const lines = text.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^ID +ADDRESS +ALIVE +DRAINING +INSTANCES +LOAD +STARTED +LAST HEARTBEAT$/);
    const counts = ['n1', 'n2'].map((id, i) => {
      const row = new RegExp(`^${id}${id === 'n1' ? ' \\*' : ''} +${node(id).url} +yes +no +(\\d+) +(\\d+)% +${ISO} +${ISO}$`).exec(lines[i + 1]!);
      assert.ok(row, `${id}'s row (n1 marked as the node that answered):\n${text.stdout}`);
      assert.equal(Number(row[2]), Math.round((Number(row[1]) / 2) * 100), 'the load is its share of the instances');
      return Number(row[1]);
    });
    assert.equal(counts[0]! + counts[1]!, 2, text.stdout);
    assert.equal(lines.at(-1), '(* answered this request)');
  });

  it('instances list shows the OWNER; instances move --wait moves a connected instance to the other node', async () => {
    const [c0] = instances;
    const before = await owners();
    const from = before.get(c0!.id)!;
    const to = other(from);
    const list = await parley('n1', 'instances', 'list');
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout.split('\n')[0]!, /^ID +NAME +CHANNEL +CONNECTED +HEALTH +OWNER +ACCOUNT +CREATED$/);
    for (const instance of instances) assert.match(list.stdout, new RegExp(`^${instance.id} +${instance.name} +sandbox +yes +\\S+ +${before.get(instance.id)} `, 'm'));

    const moved = await parley('n2', 'instances', 'move', 'c0', to, '--wait', '--timeout', String(WAIT_S));
    assert.equal(moved.code, 0, moved.stderr);
    assert.equal(moved.stdout, `Moved instance ${c0!.id} (c0) from ${from} to ${to}.\n`, 'no progress lines outside a terminal');
    assert.equal((await owners()).get(c0!.id), to, '--wait returned once the target owns it');
    const listed = await parley('n2', 'instances', 'list');
    assert.match(listed.stdout, new RegExp(`^${c0!.id} +c0 +sandbox +\\S+ +\\S+ +${to} `, 'm'), listed.stdout);
    const shown = await parley('n1', '--json', 'instances', 'show', 'c0');
    assert.equal((JSON.parse(shown.stdout) as { owner: string }).owner, to, 'GET /admin/instances/{key} names the owner');
    await until(() => connected(c0!), 'c0 reconnected on its new node');

    const back = await parley('n1', '--json', 'instances', 'move', c0!.id, from, '--wait', '--timeout', String(WAIT_S));
    assert.equal(back.code, 0, back.stderr);
    assert.deepEqual(JSON.parse(back.stdout), { instance: c0!.id, from: to, to: from });
    assert.deepEqual(await owners(), before);
  });

  it('an unknown node: drain exits 4 and move exits 1 with the API\'s message; nothing changes', async () => {
    const before = await owners();
    const drain = await parley('n1', 'cluster', 'drain', 'n9', '--wait');
    assert.deepEqual([drain.code, drain.stdout, drain.stderr], [4, '', 'parley: node not found [404 node_not_found]\n']);
    const move = await parley('n2', 'instances', 'move', 'c1', 'n9', '--wait');
    assert.deepEqual([move.code, move.stdout, move.stderr], [1, '', 'parley: body.node "n9" is not a live node taking instances [400 validation_failed]\n']);
    const json = await parley('n2', '--json', 'instances', 'move', 'c1', 'n9');
    assert.equal(json.code, 1);
    assert.deepEqual(JSON.parse(json.stderr), {
      error: {
        message: 'body.node "n9" is not a live node taking instances [400 validation_failed]', exitCode: 1, status: 400, code: 'validation_failed',
        // --json keeps the API's details, the per-field messages included (the terminal line leaves them out).
        details: { fields: [{ field: 'body.node', message: 'body.node "n9" is not a live node taking instances' }] },
      },
    });
    assert.deepEqual(await owners(), before);
    assert.ok((await cluster()).nodes.every((n) => n.alive && !n.draining));
  });

  it('cluster drain --wait empties a node; status shows it draining; a move to it is refused; resume takes it back', async () => {
    const victim = (await owners()).get(instances[0]!.id)!;
    const heir = other(victim);
    const drained = await parley(heir, 'cluster', 'drain', victim, '--wait', '--timeout', String(WAIT_S));
    assert.equal(drained.code, 0, drained.stderr);
    assert.equal(drained.stdout, `Node ${victim} is drained: it owns no instance and takes none until: parley cluster resume ${victim}\n`);
    assert.equal((await cluster()).nodes.find((n) => n.id === victim)!.instances, 0);
    await until(async () => [...(await owners()).values()].every((owner) => owner === heir), `every instance owned by ${heir}`);
    const list = await parley(victim, 'instances', 'list');
    for (const instance of instances) assert.match(list.stdout, new RegExp(`^${instance.id} +${instance.name} +sandbox +\\S+ +\\S+ +${heir} `, 'm'), list.stdout);
    for (const instance of instances) await until(() => connected(instance), `${instance.name} connected on ${heir}`);

    const status = await parley(victim, '--json', 'cluster', 'status');
    const nodesNow = (JSON.parse(status.stdout) as ClusterData).nodes;
    assert.deepEqual(nodesNow.map((n) => [n.id, n.alive, n.draining, n.instances]).sort(), [[victim, true, true, 0], [heir, true, false, 2]].sort());
    const text = await parley(heir, 'cluster', 'status');
    assert.match(text.stdout, new RegExp(`^${victim} +${node(victim).url} +yes +yes +0 +0% `, 'm'), text.stdout);

    const refused = await parley(heir, 'instances', 'move', 'c0', victim);
    assert.deepEqual([refused.code, refused.stderr], [1, `parley: body.node "${victim}" is not a live node taking instances [400 validation_failed]\n`]);
    assert.equal((await owners()).get(instances[0]!.id), heir, 'nothing moved');

    const resumed = await parley(heir, 'cluster', 'resume', victim);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(resumed.stdout, `Node ${victim} is back in service: it takes instances again (its share arrives gradually).\n`);
    assert.equal((await cluster()).nodes.find((n) => n.id === victim)!.draining, false);
    const taken = await parley(victim, 'instances', 'move', 'c0', victim, '--wait', '--timeout', String(WAIT_S));
    assert.equal(taken.code, 0, taken.stderr);
    assert.equal((await owners()).get(instances[0]!.id), victim, 'the resumed node takes instances again');
  });
});

/** The same commands against a single server (no cluster): a plain answer for status, 409 for the rest. */
describe('parley cluster on a single server', () => {
  let t: CliHost;
  const parley = (...args: string[]) => runParley([...t.flags, ...args], { cwd: t.cwd });

  before(async () => {
    t = await startCliHost();
    await t.host.client.call('adminCreateInstance', { body: { name: 'solo', options: { number: '5511964000100' } } });
  });
  after(() => t.stop());

  it('cluster status says it is not a cluster (exit 0); --json is the API\'s data', async () => {
    assert.deepEqual(await parley('cluster', 'status'), {
      code: 0, stdout: 'This server is not a cluster node: it runs as a single server (docs/cluster.md says how to run several nodes).\n', stderr: '',
    });
    const json = await parley('--json', 'cluster', 'status');
    assert.deepEqual(JSON.parse(json.stdout), { enabled: false, nodes: [] });
    const list = await parley('instances', 'list');
    assert.match(list.stdout.split('\n')[0]!, /^ID +NAME +CHANNEL +CONNECTED +HEALTH +ACCOUNT +CREATED$/, 'no OWNER column');
  });

  it('instances move and cluster drain exit 1 with 409 not_clustered; nothing changes', async () => {
    const notClustered = 'parley: this server is not a cluster node (see docs/cluster.md) [409 not_clustered]\n';
    const move = await parley('instances', 'move', 'solo', 'n2', '--wait');
    assert.deepEqual([move.code, move.stdout, move.stderr], [1, '', notClustered]);
    const drain = await parley('cluster', 'drain', 'n1');
    assert.deepEqual([drain.code, drain.stdout, drain.stderr], [1, '', notClustered]);
    const resume = await parley('cluster', 'resume', 'n1');
    assert.deepEqual([resume.code, resume.stderr], [1, notClustered]);
    const { data } = await t.host.client.call('adminListInstances');
    assert.deepEqual(data.map((i) => [i.name, i.owner]), [['solo', undefined]]);
  });
});
