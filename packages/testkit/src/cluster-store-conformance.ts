import assert from 'node:assert/strict';
import { isFencedOff, type ClusterStore, type NodeInfo, type Storage } from '@parley/core';
import { after, describe, it } from './test-runner.js';
import { uniqueId } from './storage-fixtures.js';
import { withStorage, type StorageHarness } from './storage-harness.js';

const node = (id: string, incarnation: string): NodeInfo => ({ id, address: `http://127.0.0.1:1/${id}`, incarnation, startedAt: 1, load: 0, draining: false });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The storage's cluster store; fails the test when the back end has none. */
function clusterOf(storage: Storage): ClusterStore {
  assert.ok(storage.cluster, `${storage.name} has no cluster()`);
  return storage.cluster();
}

/** Runs `body` on a new storage of the harness and its cluster store. */
function withCluster(harness: StorageHarness, body: (cluster: ClusterStore, storage: Storage) => Promise<void>): Promise<void> {
  return withStorage(harness, (storage) => body(clusterOf(storage), storage));
}

/**
 * The contract of {@link ClusterStore} (docs/cluster.md) and of the fenced writes (`Fence`) every
 * back end that runs a cluster passes: the node registry and its incarnations, one lease per instance
 * with fencing tokens that only grow, fenced auth-state and state writes refused once another node
 * took the instance, renewals, releases and offers, moves, and `firstToClaim`, also under races of
 * several callers at once. Times to live run on the store's own clock (real time), so the suite
 * sleeps past short leases; the harness's fake clock dates only what the caller dates.
 *
 * @param label - back end name shown in the test report.
 * @param harness - creates an isolated storage whose `cluster()` is under test.
 */
export function describeClusterStoreConformance(label: string, harness: StorageHarness): void {
  describe(`cluster store conformance: ${label}`, () => {
    after(async () => {
      await harness.cleanup?.();
    });
    it('registers nodes and refuses a second process claiming a live node id', () => withCluster(harness, async (cluster) => {
      assert.equal(await cluster.join(node('n1', 'a'), 5000), true);
      assert.equal(await cluster.join(node('n1', 'b'), 5000), false, 'another incarnation of n1 is refused');
      assert.equal(await cluster.heartbeat(node('n1', 'a'), 5000, 42), true);
      const [n1] = await cluster.nodes();
      assert.equal(n1!.id, 'n1');
      assert.equal(n1!.lastHeartbeat, 42);
      assert.equal(n1!.alive, true);
      await cluster.leave(node('n1', 'b'));
      assert.equal((await cluster.nodes()).length, 1, 'another incarnation cannot remove the entry');
      await cluster.leave(node('n1', 'a'));
      assert.deepEqual(await cluster.nodes(), []);
      assert.equal(await cluster.join(node('n1', 'b'), 5000), true, 'the id is free once its node left');
      await cluster.leave(node('n1', 'b'));
    }));

    it('lists a node past its time to live as dead, lets another incarnation take its id, and prunes it with its orphans offered', () => withCluster(harness, async (cluster) => {
      assert.equal(await cluster.join(node('n1', 'a'), 150), true);
      await cluster.heartbeat(node('n1', 'a'), 150, 1000);
      const lease = (await cluster.acquire('ins_p', 'n1', 150))!;
      assert.ok(lease);
      assert.equal((await cluster.nodes())[0]!.load, 1, 'the load counts the leases the node holds');
      await sleep(250);
      assert.deepEqual((await cluster.nodes()).map((n) => [n.id, n.alive, n.lastHeartbeat]), [['n1', false, 1000]]);
      assert.equal(await cluster.prune('n1', 1000), false, 'not pruned: its last heartbeat is not older than `before`');
      assert.equal(await cluster.prune('n1', 1001), true);
      assert.deepEqual(await cluster.nodes(), []);
      assert.deepEqual(await cluster.heldBy('n1'), []);
      assert.deepEqual(await cluster.unowned(10), ['ins_p'], 'its instances are offered as orphans');
      assert.equal(await cluster.join(node('n1', 'b'), 5000), true);
      assert.equal(await cluster.prune('n1', Number.MAX_SAFE_INTEGER), false, 'a live node is never pruned');
      await cluster.leave(node('n1', 'b'));
    }));

    it('gives one lease per instance, tokens that only grow, and fences writes of a node that lost it', () => withCluster(harness, async (cluster, storage) => {
      const first = await cluster.acquire('ins_a', 'n1', 1000);
      assert.ok(first);
      assert.equal(await cluster.acquire('ins_a', 'n2', 150), null, 'held: refused');
      await storage.authState.set('ins_a', [{ category: 'creds', id: 'me', value: 'one' }], first);
      await storage.state.put('ins_a:sandbox', 'x', 1, first);
      assert.deepEqual(await cluster.renew([first], 1000), []);
      assert.equal((await cluster.owners(['ins_a'])).get('ins_a')?.node, 'n1');
      assert.deepEqual(await cluster.heldBy('n1'), ['ins_a']);
      // n1 pauses past its lease: n2 takes the instance with a greater token.
      await sleep(1100);
      const second = await cluster.acquire('ins_a', 'n2', 5000);
      assert.ok(second && second.token > first.token);
      assert.deepEqual(await cluster.heldBy('n1'), []);
      await storage.authState.set('ins_a', [{ category: 'creds', id: 'me', value: 'two' }], second);
      // n1 wakes up: every fenced write is refused and changes nothing.
      await assert.rejects(storage.authState.set('ins_a', [{ category: 'creds', id: 'me', value: 'stale' }], first), (err) => isFencedOff(err));
      await assert.rejects(storage.authState.clear('ins_a', first), (err) => isFencedOff(err));
      await assert.rejects(storage.state.put('ins_a:sandbox', 'x', 2, first), (err) => isFencedOff(err));
      await assert.rejects(storage.state.delete('ins_a:sandbox', 'x', first), (err) => isFencedOff(err));
      await assert.rejects(storage.state.clearPrefix('ins_a:', first), (err) => isFencedOff(err));
      assert.deepEqual(await storage.authState.get('ins_a', 'creds', ['me']), { me: 'two' });
      assert.equal(await storage.state.get('ins_a:sandbox', 'x'), 1);
      assert.deepEqual(await cluster.renew([first], 5000), ['ins_a'], 'the old owner learns it lost the lease');
      // Release hands the instance over at once.
      await cluster.release([second]);
      assert.deepEqual(await cluster.unowned(10), ['ins_a']);
      const third = await cluster.acquire('ins_a', 'n3', 5000);
      assert.ok(third && third.token > second.token);
      assert.deepEqual(await cluster.unowned(10), []);
      assert.equal(await storage.state.delete('ins_a:sandbox', 'x', third), true);
      await storage.authState.clear('ins_a', third);
      assert.deepEqual(await storage.authState.get('ins_a', 'creds', ['me']), {});
      await cluster.forget('ins_a');
      assert.equal((await cluster.owners(['ins_a'])).size, 0);
      assert.deepEqual(await cluster.heldBy('n3'), []);
    }));

    it('renews a lease that expired while nobody took it, and records moves', () => withCluster(harness, async (cluster) => {
      const lease = (await cluster.acquire('ins_b', 'n1', 100))!;
      await sleep(200);
      assert.equal((await cluster.owners(['ins_b'])).size, 0);
      assert.deepEqual(await cluster.renew([lease], 5000), []);
      assert.equal((await cluster.owners(['ins_b'])).get('ins_b')?.token, lease.token);
      await cluster.requestMove('ins_b', 'n2');
      assert.deepEqual([...(await cluster.movesFor(['ins_b', 'ins_c']))], [['ins_b', 'n2']]);
      assert.equal(await cluster.moveTarget('ins_b'), 'n2');
      await cluster.release([lease]);
      assert.equal(await cluster.acquire('ins_b', 'n3', 5000), null, 'a pending move leaves the instance to its target');
      const forced = await cluster.acquire('ins_b', 'n3', 100, { honourMove: false });
      assert.ok(forced, 'a move to a dead node is overridden');
      await sleep(200);
      assert.ok(await cluster.acquire('ins_b', 'n2', 5000));
      assert.equal(await cluster.moveTarget('ins_b'), undefined, 'a move is done once its target holds the lease');
    }));

    it('offers instances once each, oldest first, and forgets them', () => withCluster(harness, async (cluster) => {
      const [a, b, c] = [uniqueId('ins'), uniqueId('ins'), uniqueId('ins')];
      await cluster.offer([a, b]);
      await cluster.offer([c, a]);
      assert.deepEqual((await cluster.unowned(10)).sort(), [a, b, c].sort());
      assert.equal((await cluster.unowned(2)).length, 2);
      await cluster.offer([]);
      await cluster.forget(b);
      assert.deepEqual((await cluster.unowned(10)).sort(), [a, c].sort());
    }));

    it('of many nodes acquiring one instance at once, exactly one gets it; tokens grow across every take', () => withCluster(harness, async (cluster) => {
      const tokens: number[] = [];
      for (let round = 0; round < 3; round++) {
        // A lease that outlives any wait for a connection (a loaded machine: a 100 ms lease expired before the last
        // caller ran, and a second winner was right), given back before the next round.
        const takes = await Promise.all(['n1', 'n2', 'n3', 'n4', 'n5'].map((n) => cluster.acquire('ins_race', n, 30_000)));
        const won = takes.filter((t) => t !== null);
        assert.equal(won.length, 1, `one winner in round ${round}: ${JSON.stringify(takes)}`);
        tokens.push(won[0]!.token);
        await cluster.release([won[0]!]);
      }
      assert.ok(tokens[0]! < tokens[1]! && tokens[1]! < tokens[2]!, `tokens grow: ${tokens}`);
      const other = (await cluster.acquire('ins_race_other', 'n1', 5000))!;
      assert.ok(other.token > tokens[2]!, 'greater than every earlier lease of any instance');
    }));

    it('answers true to the first claim of a key only, among callers at once, until it expires', () => withCluster(harness, async (cluster, storage) => {
      const stores = [cluster, clusterOf(storage), clusterOf(storage)];
      const answers = await Promise.all(stores.map((c) => c.firstToClaim('dead:n9/x', 300)));
      assert.deepEqual(answers.filter(Boolean).length, 1, `one winner: ${JSON.stringify(answers)}`);
      assert.equal(await stores[0]!.firstToClaim('dead:n9/y', 300), true, 'another key is claimed on its own');
      await sleep(400);
      assert.equal(await stores[1]!.firstToClaim('dead:n9/x', 300), true, 'claimable again once expired');
    }));
  });
}
