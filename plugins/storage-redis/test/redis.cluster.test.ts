import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FakeClock } from '@parley/testkit';
import { isFencedOff, type NodeInfo } from '@parley/core';
import { RedisStorage } from '../src/redis.storage.js';
import { deleteKeys, redisUrlOrSkip, uniquePrefix } from './redis-env.js';

const node = (id: string, incarnation: string): NodeInfo => ({ id, address: `http://127.0.0.1:1/${id}`, incarnation, startedAt: 1, load: 0, draining: false });

describe('@parley/storage-redis cluster coordination', () => {
  const url = redisUrlOrSkip('redis cluster store');
  if (!url) return;
  const keyPrefix = uniquePrefix('cluster');
  const clock = new FakeClock(1_700_000_000_000);
  const storage = new RedisStorage({ url, keyPrefix }, undefined, clock);
  before(() => storage.init());
  after(async () => {
    await storage.close();
    await deleteKeys(url, keyPrefix);
  });

  it('registers nodes and refuses a second process claiming a live node id', async () => {
    const cluster = storage.cluster();
    assert.equal(await cluster.join(node('n1', 'a'), 5000), true);
    assert.equal(await cluster.join(node('n1', 'b'), 5000), false, 'another incarnation of n1 is refused');
    assert.equal(await cluster.heartbeat(node('n1', 'a'), 5000, 42), true);
    const [n1] = await cluster.nodes();
    assert.equal(n1!.id, 'n1');
    assert.equal(n1!.lastHeartbeat, 42);
    assert.equal(n1!.alive, true);
    await cluster.leave(node('n1', 'a'));
    assert.deepEqual(await cluster.nodes(), []);
    assert.equal(await cluster.join(node('n1', 'b'), 5000), true, 'the id is free once its node left');
    await cluster.leave(node('n1', 'b'));
  });

  it('gives one lease per instance, tokens that only grow, and fences writes of a node that lost it', async () => {
    const cluster = storage.cluster();
    const first = await cluster.acquire('ins_a', 'n1', 1000);
    assert.ok(first);
    assert.equal(await cluster.acquire('ins_a', 'n2', 150), null, 'held: SET NX refuses');
    await storage.authState.set('ins_a', [{ category: 'creds', id: 'me', value: 'one' }], first);
    await storage.state.put('ins_a:sandbox', 'x', 1, first);
    assert.deepEqual(await cluster.renew([first], 1000), []);
    assert.equal((await cluster.owners(['ins_a'])).get('ins_a')?.node, 'n1');
    assert.deepEqual(await cluster.heldBy('n1'), ['ins_a']);
    // n1 pauses past its lease: n2 takes the instance with a greater token.
    await new Promise((r) => setTimeout(r, 1100));
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
    await cluster.forget('ins_a');
    assert.equal((await cluster.owners(['ins_a'])).size, 0);
  });

  it('renews a lease that expired while nobody took it, and records moves', async () => {
    const cluster = storage.cluster();
    const lease = (await cluster.acquire('ins_b', 'n1', 100))!;
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((await cluster.owners(['ins_b'])).size, 0);
    assert.deepEqual(await cluster.renew([lease], 5000), []);
    assert.equal((await cluster.owners(['ins_b'])).get('ins_b')?.token, lease.token);
    await cluster.requestMove('ins_b', 'n2');
    assert.deepEqual([...(await cluster.movesFor(['ins_b', 'ins_c']))], [['ins_b', 'n2']]);
    await cluster.release([lease]);
    await cluster.acquire('ins_b', 'n2', 5000);
    assert.equal(await cluster.moveTarget('ins_b'), undefined, 'a move is done once its target holds the lease');
  });

  it('answers true to the first claim of a key only, among stores of several nodes at once, until it expires', async () => {
    const stores = [storage.cluster(), storage.cluster(), storage.cluster()];
    const answers = await Promise.all(stores.map((c) => c.firstToClaim('dead:n9/x', 300)));
    assert.deepEqual(answers.filter(Boolean).length, 1, `one winner: ${JSON.stringify(answers)}`);
    assert.equal(await stores[0]!.firstToClaim('dead:n9/y', 300), true, 'another key is claimed on its own');
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(await stores[1]!.firstToClaim('dead:n9/x', 300), true, 'claimable again once expired');
  });
});
