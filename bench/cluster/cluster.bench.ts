/**
 * bench/cluster: three Parley nodes (the real CLI, separate processes) on one Redis.
 * 1. Sends (`POST /{key}/message/text` from a sandbox instance to `BENCH_PEERS` others in turn) straight to
 *    the owner vs through a node that forwards them, in interleaved rounds of the same run (autocannon):
 *    answered 2xx per second, completed per second once the queue drained, and CPU per send by process;
 *    then again with the nodes restarted without the outbound queue (each answer a completed send).
 * 2. Failover: the owner of an instance is killed (SIGKILL) `BENCH_KILLS` times; each time, the time
 *    until a send through another node is answered 200 again (polled every 50 ms), then the node restarts.
 * 3. Memory: RSS of each node before and after `BENCH_IDLE` idle (connected) sandbox instances spread over the nodes.
 * 4. Failover at scale: the node owning the most of those instances is killed (SIGKILL); the time until
 *    each of its instances answers a send through another node 200 again (every instance tried in turn).
 * Run: `npm run build && node bench/dist/cluster/cluster.bench.js`
 * (REDIS_URL, BENCH_SECONDS=8, BENCH_ROUNDS=3, BENCH_CONNECTIONS=50, BENCH_PEERS=10, BENCH_KILLS=10, BENCH_IDLE=1000).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisStorage } from '@parley/storage-redis';
import { deleteKeys } from '@parley/storage-redis/testing';
import { freePort, NodeProcess } from '@parley/testkit/host';
import { machine, percentile, rssMiBOf, table } from '../support/measure.js';
import { redisPid, sendRounds } from './send-rounds.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const KILLS = Number(process.env.BENCH_KILLS ?? 10);
const IDLE = Number(process.env.BENCH_IDLE ?? 1000);
const PEERS = Number(process.env.BENCH_PEERS ?? 10);
const IDS = ['b1', 'b2', 'b3'];

const dir = mkdtempSync(join(tmpdir(), 'parley-bench-cluster-'));
const keyPrefix = `parley-bench-cluster-${process.pid}:`;
const ports = new Map<string, number>();
const nodes = new Map<string, NodeProcess>();

/**
 * Starts node `id`. With the queue on, its bound is one no round reaches: every send is accepted, and
 * the round ends once the queue is empty. No rebalancing: an instance stays where placement (at
 * creation, or when its owner died) put it, so a round's owner is the owner all round.
 */
async function start(id: string, queued = true): Promise<NodeProcess> {
  const queue = queued ? { maxQueued: 1_000_000 } : { enabled: false };
  const node = await NodeProcess.start({ id, port: ports.get(id)!, redisUrl: REDIS_URL, keyPrefix, dir, queue, cluster: { movesPerMinute: 0 } });
  nodes.set(id, node);
  return node;
}

/** Stops every node (SIGTERM) and starts them again, with the outbound queue on or off; answers once `key` serves a send. */
async function restartAll(queued: boolean, key: string): Promise<void> {
  await Promise.all([...nodes.values()].map((node) => node.stop()));
  for (const id of IDS) await start(id, queued);
  const via = nodes.get(IDS[0]!)!;
  while ((await via.request('POST', `/${key}/message/text`, { to: '5511973000002', text: 'restarted' }).catch(() => ({ status: 0 }))).status !== 200) {
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function sandbox(via: NodeProcess, number: string): Promise<{ id: string; key: string }> {
  const created = await via.request('POST', '/admin/instances', { channel: 'sandbox', options: { number } }, {}, true);
  if (created.status !== 200) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  const { id, key } = created.body.data as { id: string; key: string };
  for (const path of [`/${key}/instance`, `/sandbox/${key}/scan`]) {
    const res = await via.request('POST', path);
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  }
  return { id, key };
}

async function ownerOf(id: string): Promise<string> {
  const list = await nodes.get('b1')!.request('GET', '/admin/instances', undefined, {}, true);
  return (list.body.data as { id: string; owner: string }[]).find((i) => i.id === id)!.owner;
}

async function main(): Promise<void> {
  for (const id of IDS) ports.set(id, await freePort());
  for (const id of IDS) await start(id);
  const b1 = nodes.get('b1')!;
  const a = await sandbox(b1, '5511973000001');
  const owner = await ownerOf(a.id);
  // The peer on the same owner: a move puts it there.
  const b = await sandbox(b1, '5511973000002');
  if ((await ownerOf(b.id)) !== owner) await b1.request('POST', `/admin/instances/${b.id}/move`, { node: owner }, {}, true);
  while ((await ownerOf(b.id)) !== owner) await new Promise((r) => setTimeout(r, 100));
  const forwarder = IDS.find((id) => id !== owner)!;
  // Receivers wherever placement puts them: the queue sends to one recipient at a time, so a round rotates over them.
  const peers = ['5511973000002'];
  for (let i = 0; i < PEERS - 1; i++) {
    const number = String(5511973000010 + i);
    await sandbox(b1, number);
    peers.push(number);
  }

  const rounds = { connections: CONNECTIONS, seconds: SECONDS, rounds: ROUNDS, redis: await redisPid(REDIS_URL), ownerNow: () => ownerOf(a.id) };
  const queuedRatio = await sendRounds(nodes, owner, forwarder, a.key, peers, { ...rounds, queued: true });
  await restartAll(false, a.key);
  const unqueuedOwner = await ownerOf(a.id);
  const unqueuedRatio = await sendRounds(nodes, unqueuedOwner, IDS.find((id) => id !== unqueuedOwner)!, a.key, peers, { ...rounds, queued: false });
  console.log(`\nSends completed per second, forwarded / direct (median; target 0.70): ${queuedRatio.toFixed(2)} with the queue, ${unqueuedRatio.toFixed(2)} without`);
  await restartAll(true, a.key);

  const times: number[] = [];
  for (let kill = 0; kill < KILLS; kill++) {
    const victim = await ownerOf(a.id);
    const via = nodes.get(IDS.find((id) => id !== victim)!)!;
    const killedAt = performance.now();
    await nodes.get(victim)!.stop('SIGKILL');
    for (;;) {
      const res = await via.request('POST', `/${a.key}/message/text`, { to: '5511973000002', text: 'failover' }).catch(() => ({ status: 0 }));
      if (res.status === 200) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    times.push(performance.now() - killedAt);
    await start(victim);
  }
  console.log(`\n## Failover: SIGKILL of the owner until a send through another node answers 200 (${KILLS} kills)\n`);
  console.log(table(['p50 s', 'max s', 'all s'], [[(percentile(times, 50) / 1000).toFixed(1), (Math.max(...times) / 1000).toFixed(1), times.map((t) => (t / 1000).toFixed(1)).join(' ')]]));

  const before = new Map(IDS.map((id) => [id, rssMiBOf(nodes.get(id)!.child.pid!)]));
  const idle: { id: string; key: string }[] = [];
  for (let i = 0; i < IDLE; i++) idle.push(await sandbox(nodes.get(IDS[i % 3]!)!, `55119740${String(i).padStart(5, '0')}`));
  await new Promise((r) => setTimeout(r, 3000));
  const cluster = await b1.request('GET', '/admin/cluster', undefined, {}, true);
  const owned = new Map((cluster.body.data.nodes as { id: string; instances: number }[]).map((n) => [n.id, n.instances]));
  console.log(`\n## Memory: ${IDLE} idle connected sandbox instances over three nodes\n`);
  console.log(table(['node', 'instances', 'RSS before MiB', 'RSS after MiB', 'KiB per instance'], IDS.map((id) => {
    const after = rssMiBOf(nodes.get(id)!.child.pid!);
    const count = owned.get(id) ?? 0;
    return [id, count, before.get(id)!.toFixed(0), after.toFixed(0), count ? (((after - before.get(id)!) * 1024) / count).toFixed(0) : '-'];
  })));
  if (idle.length > 0) await failoverAtScale(idle);
  console.log(`\n${machine()}`);
}

/** Only this long is waited for the killed node's instances: past it the phase reports what is still not served. */
const FAILOVER_WAIT_MS = 120_000;
/** Sends in flight while the killed node's instances are tried. */
const PROBES = 32;

/** Phase 4: SIGKILL of the node owning the most idle instances; when each of them serves a send again. */
async function failoverAtScale(idle: { id: string; key: string }[]): Promise<void> {
  const store = new RedisStorage({ url: REDIS_URL, keyPrefix });
  await store.init();
  const owners = await store.cluster!().owners(idle.map((i) => i.id));
  await store.close();
  const counts = new Map<string, number>();
  for (const lease of owners.values()) counts.set(lease.node, (counts.get(lease.node) ?? 0) + 1);
  const victim = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
  const theirs = idle.filter((i) => owners.get(i.id)?.node === victim);
  const via = IDS.filter((id) => id !== victim).map((id) => nodes.get(id)!);
  const killedAt = performance.now();
  await nodes.get(victim)!.stop('SIGKILL');
  const served = new Map<string, number>();
  let pending = theirs;
  while (pending.length > 0 && performance.now() - killedAt < FAILOVER_WAIT_MS) {
    let next = 0;
    const failed: typeof pending = [];
    await Promise.all(Array.from({ length: PROBES }, async (_, w) => {
      for (let i = next++; i < pending.length; i = next++) {
        const instance = pending[i]!;
        const res = await via[w % via.length]!.request('POST', `/${instance.key}/message/text`, { to: '5511973000002', text: 'failover at scale' })
          .catch(() => ({ status: 0 }));
        if (res.status === 200) served.set(instance.id, performance.now() - killedAt);
        else failed.push(instance);
      }
    }));
    pending = failed;
    if (pending.length > 0) await new Promise((r) => setTimeout(r, 100));
  }
  const times = [...served.values()];
  console.log(`\n## Failover at scale: SIGKILL of ${victim}, owner of ${theirs.length} instances, until each answers a send through another node\n`);
  console.log(table(['instances', 'served again', 'p50 s', 'max s', 'within 15 s'], [[
    theirs.length, served.size, (percentile(times, 50) / 1000).toFixed(1), (Math.max(...times) / 1000).toFixed(1),
    served.size === theirs.length && Math.max(...times) <= 15_000 ? 'yes' : 'no',
  ]]));
  await start(victim);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
}).finally(async () => {
  await Promise.all([...nodes.values()].map((n) => n.stop('SIGKILL')));
  await deleteKeys(REDIS_URL, keyPrefix);
  rmSync(dir, { recursive: true, force: true });
});
