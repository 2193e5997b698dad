import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ServiceUnavailableError } from '@parley/core';
import { TcpProxy, eventually } from '@parley/testkit';
import { RedisStorage } from '../src/index.js';
import { redisUrlOrSkip, uniquePrefix } from './redis-env.js';

describe('@parley/storage-redis signals (pub/sub among the servers on one Redis and prefix)', () => {
  const url = redisUrlOrSkip('redis signals');
  if (!url) return;
  const target = new URL(url);
  const stores: RedisStorage[] = [];
  const open = async (keyPrefix: string, storeUrl = url) => {
    const storage = new RedisStorage({ url: storeUrl, keyPrefix, commandTimeoutMs: 500 });
    await storage.init();
    stores.push(storage);
    return storage;
  };
  after(async () => {
    for (const storage of stores) await storage.close();
  });

  it('a publish reaches every subscriber on the same prefix, the publisher\'s own included, and nobody on another prefix', async () => {
    const prefix = uniquePrefix('signals');
    const [one, two, other] = [await open(prefix), await open(prefix), await open(uniquePrefix('signals-other'))];
    const heard: Record<string, string[]> = { one: [], two: [], other: [] };
    const stopOne = await one.signals().subscribe('t', (m) => heard.one!.push(m));
    await two.signals().subscribe('t', (m) => heard.two!.push(m));
    await other.signals().subscribe('t', (m) => heard.other!.push(m));
    await two.signals().subscribe('another topic', (m) => heard.two!.push(`wrong topic: ${m}`));
    assert.equal(await two.signals().publish('t', 'first'), 2, 'two subscribed connections received it');
    assert.equal(await one.signals().publish('t', 'second'), 2);
    assert.ok(await eventually(async () => heard.one!.length === 2 && heard.two!.length === 2));
    assert.deepEqual(heard, { one: ['first', 'second'], two: ['first', 'second'], other: [] });

    await stopOne();
    assert.equal(await two.signals().publish('t', 'third'), 1);
    assert.ok(await eventually(async () => heard.two!.length === 3));
    assert.deepEqual(heard.one, ['first', 'second'], 'an unsubscribed listener hears nothing more');
    assert.equal(one.signals(), one.signals(), 'one object per storage');
  });

  it('publish fails with ServiceUnavailableError while Redis is unreachable; subscriptions come back and onReconnect fires', async () => {
    const proxy = new TcpProxy(target.hostname, Number(target.port || 6379));
    await proxy.start();
    try {
      const prefix = uniquePrefix('signals-outage');
      const cut = await open(prefix, `redis://127.0.0.1:${proxy.port}`);
      const direct = await open(prefix);
      const heard: string[] = [];
      let restored = 0;
      await cut.signals().subscribe('t', (m) => heard.push(m));
      cut.signals().onReconnect(() => restored++);
      await proxy.cut();
      await assert.rejects(cut.signals().publish('t', 'lost'), ServiceUnavailableError);
      await proxy.restore();
      assert.ok(await eventually(async () => restored === 1, 10_000), 'onReconnect fired once the link was back');
      assert.equal(await direct.signals().publish('t', 'after'), 1, 'the subscription is active again');
      assert.ok(await eventually(async () => heard.includes('after')));
    } finally {
      await proxy.cut();
    }
  });

  it('a subscribed connection that went silent is replaced: subscriptions come back and onReconnect fires', async () => {
    const proxy = new TcpProxy(target.hostname, Number(target.port || 6379));
    await proxy.start();
    try {
      const prefix = uniquePrefix('signals-blackhole');
      const silent = new RedisStorage({ url: `redis://127.0.0.1:${proxy.port}`, keyPrefix: prefix, commandTimeoutMs: 400, pingIntervalMs: 100 });
      await silent.init();
      stores.push(silent);
      const direct = await open(prefix);
      const heard: string[] = [];
      let restored = 0;
      await silent.signals().subscribe('t', (m) => heard.push(m));
      silent.signals().onReconnect(() => restored++);
      proxy.blackhole();
      assert.equal(await direct.signals().publish('t', 'dropped'), 1, 'still subscribed as Redis sees it');
      await new Promise((r) => setTimeout(r, 1000));
      await proxy.pass();
      assert.ok(await eventually(async () => restored >= 1, 200), 'onReconnect fired once a new connection subscribed');
      assert.ok(await eventually(async () => (await direct.signals().publish('t', 'after')) >= 1 && heard.includes('after'), 100));
      assert.ok(!heard.includes('dropped'));
    } finally {
      await proxy.cut();
    }
  });
});
