import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { serviceUrlOrSkip } from '@parley/testkit';
import { CLUSTER_ADMIN_TOKEN, freePort, NodeProcess } from '@parley/testkit/host';
import { tearDownCluster, until } from '../support/cluster-load.js';
import { SseClient } from '../support/sse-client.js';
import { WsClient } from '../support/ws-client.js';

/** Short leases: a killed node is listed dead 5 s after its last heartbeat at most (a loaded machine stalls a starting node for seconds). */
const TIMING = { leaseTtlMs: 5000, renewIntervalMs: 1000, driftMarginMs: 1000 };
const NODE_EVENT = /^cluster\.node\./;

/** A node event as a stream carried it: no id, `data` naming the node. */
interface Seen {
  id?: string;
  event: string;
  data: { node: string; address: string; at: number; lastHeartbeat?: number };
}

/**
 * Real node processes on one Redis: the admin streams of two nodes (SSE on one, WebSocket on the
 * other) carry a third node's joining and death (SIGKILL) and a fourth node's joining and graceful
 * leaving (SIGTERM), each once — although every live node notices a death.
 */
describe('cluster: node events on the admin stream', { timeout: 120_000 }, () => {
  const redisUrl = serviceUrlOrSkip('REDIS_URL', 'cluster node events');
  if (!redisUrl) return;
  const keyPrefix = `parley-test:cluster-node-events:${process.pid}-${randomBytes(4).toString('hex')}:`;
  const dir = mkdtempSync(join(tmpdir(), 'parley-cluster-node-events-'));
  const nodes = new Map<string, NodeProcess>();
  const launch = async (id: string) => {
    const node = NodeProcess.launch({ id, port: await freePort(), redisUrl, keyPrefix, dir, cluster: TIMING });
    nodes.set(id, node);
    await node.ready(60_000);
    return node;
  };

  before(async () => {
    await Promise.all(['n1', 'n2'].map(launch));
  });

  after(() => tearDownCluster({ nodes: nodes.values(), closers: [], redisUrl, keyPrefix, dir }));

  it('a node that joins and is killed, and one that joins and stops gracefully: joined, dead, joined, left — once each on every admin stream', async () => {
    const auth = { authorization: `Bearer ${CLUSTER_ADMIN_TOKEN}` };
    const sse = new SseClient(`${nodes.get('n1')!.url}/admin/events`, auth);
    const ws = new WsClient(`${nodes.get('n2')!.url.replace(/^http/, 'ws')}/admin/events`, { headers: { Authorization: auth.authorization } });
    await Promise.all([sse.opened, ws.settled]);
    assert.equal(sse.status, 200);
    assert.equal(ws.refused, undefined);
    const viaSse = (): Seen[] => sse.frames.filter((f) => NODE_EVENT.test(f.event ?? '')).map((f) => ({ ...(f.id ? { id: f.id } : {}), event: f.event!, data: JSON.parse(f.data!) }));
    const viaWs = (): Seen[] => ws.messages.filter((m) => NODE_EVENT.test(m.event)).map((m) => ({ ...(m.id ? { id: m.id } : {}), event: m.event, data: m.data }));
    // The node's latest event (a node stalled on a loaded machine may have been listed dead and alive again before).
    const both = (what: string) => until(async () => [viaSse(), viaWs()].every((seen) => {
      const last = seen.filter((e) => e.data.node === what.split(' ')[1]).at(-1);
      return last !== undefined && `${last.event} ${last.data.node}` === what;
    }), `${what} on both admin streams`, 30_000);

    const n3 = await launch('n3');
    await both('cluster.node.joined n3');
    const n4 = await launch('n4');
    await both('cluster.node.joined n4');
    assert.equal(await n3.stop('SIGKILL'), 'SIGKILL');
    // Three live nodes notice it (each scans every 500 ms); one announces it.
    await both('cluster.node.dead n3');
    assert.equal(await n4.stop('SIGTERM'), 0);
    await both('cluster.node.left n4');
    // Scans go on: a duplicate announcement would come within a few of them.
    await new Promise((resolve) => setTimeout(resolve, 3_000));

    // Each change once: per node, joined and dead alternate (a node stalled past its time to live on a loaded
    // machine is listed dead, then alive again: announced so, once each), and the last is how it ended.
    const story = (seen: Seen[], node: string) => seen.filter((e) => e.data.node === node).map((e) => e.event.slice('cluster.node.'.length));
    const flaps = (events: string[]) => events.slice(0, -1).every((e, i) => e === (i % 2 === 0 ? 'joined' : 'dead'));
    const [sse1, ws2] = [viaSse(), viaWs()];
    assert.deepEqual(ws2.map((e) => `${e.event} ${e.data.node}`), sse1.map((e) => `${e.event} ${e.data.node}`), 'both admin streams carry the same node events, in the same order');
    const [of3, of4] = [story(sse1, 'n3'), story(sse1, 'n4')];
    assert.ok(flaps(of3) && of3.length % 2 === 0 && of3.at(-1) === 'dead', `n3 joined, then died: ${of3.join(', ')}`);
    assert.ok(flaps(of4) && of4.at(-1) === 'left', `n4 joined, then left: ${of4.join(', ')}`);
    // n1 and n2 may still be announced joined by a peer's first scans after the streams opened (each
    // announces a process it sees new); from n3's joining on, nothing more about them.
    const fromN3 = sse1.slice(sse1.findIndex((e) => e.data.node === 'n3'));
    assert.deepEqual(story(fromN3, 'n1').concat(story(fromN3, 'n2')), [], 'nothing about the nodes that ran all along');
    assert.ok(['n1', 'n2'].every((n) => story(sse1, n).every((e) => e === 'joined') && story(sse1, n).length <= 1), `n1, n2: at most their own joining`);
    for (const [name, seen] of [['SSE on n1', sse1], ['WebSocket on n2', ws2]] as const) {
      assert.ok(seen.every((e) => e.id === undefined), `${name}: node events carry no id (they are not in the event log)`);
      assert.equal(seen.find((e) => e.data.node === 'n3')!.data.address, n3.url, `${name}: the node's address`);
      const dead = seen.filter((e) => e.event === 'cluster.node.dead').at(-1)!;
      assert.ok(typeof dead.data.lastHeartbeat === 'number' && dead.data.lastHeartbeat <= dead.data.at, `${name}: the dead node's last heartbeat`);
    }
    // The registry agrees: n3 listed dead, n4 gone.
    const listed = await nodes.get('n1')!.request('GET', '/admin/cluster', undefined, {}, true);
    const byId = new Map((listed.body.data.nodes as { id: string; alive: boolean }[]).map((n) => [n.id, n.alive]));
    assert.equal(byId.get('n3'), false);
    assert.equal(byId.has('n4'), false);
    sse.close();
    ws.ws.close();
    await ws.closed;
  });
});
