/**
 * bench/cluster: three Parley nodes (the real CLI, separate processes) on one Redis.
 * 1. Sends (`POST /{key}/message/text` between two sandbox instances of one owner) straight to the
 *    owner vs through a node that forwards them, in interleaved rounds of the same run (autocannon).
 * 2. Failover: the owner of an instance is killed (SIGKILL) `BENCH_KILLS` times; each time, the time
 *    until a send through another node is answered 200 again (polled every 50 ms), then the node restarts.
 * 3. Memory: RSS of each node before and after `BENCH_IDLE` idle (connected) sandbox instances spread over the nodes.
 * Run: `npm run build && node bench/dist/cluster/cluster.bench.js`
 * (REDIS_URL, BENCH_SECONDS=8, BENCH_ROUNDS=3, BENCH_CONNECTIONS=50, BENCH_KILLS=10, BENCH_IDLE=1000).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { deleteKeys } from '@parley/storage-redis/testing';
import { freePort, NodeProcess } from '@parley/testkit/host';
import { machine, percentile, table } from '../support/measure.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const KILLS = Number(process.env.BENCH_KILLS ?? 10);
const IDLE = Number(process.env.BENCH_IDLE ?? 1000);
const IDS = ['b1', 'b2', 'b3'];

const dir = mkdtempSync(join(tmpdir(), 'parley-bench-cluster-'));
const keyPrefix = `parley-bench-cluster-${process.pid}:`;
const ports = new Map<string, number>();
const nodes = new Map<string, NodeProcess>();

function rssMiBOf(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

async function start(id: string): Promise<NodeProcess> {
  const node = await NodeProcess.start({ id, port: ports.get(id)!, redisUrl: REDIS_URL, keyPrefix, dir });
  nodes.set(id, node);
  return node;
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

async function sendRate(url: string, key: string, to: string): Promise<number> {
  const result = await autocannon({
    url: `${url}/${key}/message/text`, method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ to, text: 'hello from the cluster benchmark' }), connections: CONNECTIONS, duration: SECONDS,
  });
  if (result.non2xx > 0 || result.errors > 0) console.warn(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
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

  const direct: number[] = [];
  const forwarded: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    direct.push(await sendRate(nodes.get(owner)!.url, a.key, '5511973000002'));
    forwarded.push(await sendRate(nodes.get(forwarder)!.url, a.key, '5511973000002'));
  }
  const ratios = direct.map((d, i) => forwarded[i]! / d);
  console.log(`\n## Sends: straight to the owner vs forwarded (${CONNECTIONS} connections, ${ROUNDS} × ${SECONDS} s rounds, interleaved)\n`);
  console.log(table(['round', 'direct req/s', 'forwarded req/s', 'forwarded / direct'],
    direct.map((d, i) => [i + 1, Math.round(d), Math.round(forwarded[i]!), ratios[i]!.toFixed(2)])));
  console.log(`median forwarded / direct: ${percentile(ratios, 50).toFixed(2)}`);

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
  for (let i = 0; i < IDLE; i++) await sandbox(nodes.get(IDS[i % 3]!)!, `55119740${String(i).padStart(5, '0')}`);
  await new Promise((r) => setTimeout(r, 3000));
  const cluster = await b1.request('GET', '/admin/cluster', undefined, {}, true);
  const owned = new Map((cluster.body.data.nodes as { id: string; instances: number }[]).map((n) => [n.id, n.instances]));
  console.log(`\n## Memory: ${IDLE} idle connected sandbox instances over three nodes\n`);
  console.log(table(['node', 'instances', 'RSS before MiB', 'RSS after MiB', 'KiB per instance'], IDS.map((id) => {
    const after = rssMiBOf(nodes.get(id)!.child.pid!);
    const count = owned.get(id) ?? 0;
    return [id, count, before.get(id)!.toFixed(0), after.toFixed(0), count ? (((after - before.get(id)!) * 1024) / count).toFixed(0) : '-'];
  })));
  console.log(`\n${machine()}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
}).finally(async () => {
  await Promise.all([...nodes.values()].map((n) => n.stop('SIGKILL')));
  await deleteKeys(REDIS_URL, keyPrefix);
  rmSync(dir, { recursive: true, force: true });
});
