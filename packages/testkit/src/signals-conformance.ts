import assert from 'node:assert/strict';
import { ServiceUnavailableError, type Storage, type StorageSignals } from '@parley/core';
import { after, describe, it } from './test-runner.js';
import { uniqueId } from './storage-fixtures.js';
import { eventually, TcpProxy } from './tcp-proxy.js';

/** How a back end with signals plugs into {@link describeSignalsConformance}. */
export interface SignalsHarness {
  /**
   * A new storage (not yet initialized) over the deployment `scope` (a key prefix, a schema): storages
   * of one scope share their signals, storages of different scopes never hear each other.
   */
  create(scope: string): Promise<Storage>;
  /**
   * Optional: the outage cases. `server` is the back end's address; `create` opens a storage of `scope`
   * through a TCP proxy listening on `port` (which the suite cuts, refuses and blackholes), with a
   * command time-out and liveness check short enough that a silent link is found within `silentMs`.
   */
  outage?: { server: { host: string; port: number }; create(scope: string, port: number): Promise<Storage>; silentMs: number };
  /** Runs once after the suite. */
  cleanup?(): Promise<void>;
}

/**
 * The {@link StorageSignals} contract every back end with signals passes: a publish reaches every
 * subscription of its topic on every storage of the scope (the publisher's own included) and nobody
 * on another scope or topic; an ended subscription hears nothing more; one publisher's messages are
 * heard in the order published, a message of 64 KiB and more than one byte per character included.
 * Outages and reconnection depend on how the back end is reached and stay in its own tests.
 */
export function describeSignalsConformance(label: string, harness: SignalsHarness): void {
  describe(`signals conformance: ${label}`, () => {
    const stores: Storage[] = [];
    const open = async (scope: string) => {
      const storage = await harness.create(scope);
      stores.push(storage);
      await storage.init();
      assert.ok(storage.signals, `${storage.name} has no signals()`);
      return storage.signals();
    };
    after(async () => {
      for (const storage of stores) await storage.close();
      await harness.cleanup?.();
    });

    it('a publish reaches every subscriber on the same scope, the publisher\'s own included, and nobody on another scope or topic', async () => {
      const scope = uniqueId('s');
      const [one, two, other] = [await open(scope), await open(scope), await open(`${scope}_other`)];
      const heard: Record<string, string[]> = { one: [], two: [], other: [] };
      const stopOne = await one.subscribe('t', (m) => heard.one!.push(m));
      await two.subscribe('t', (m) => heard.two!.push(m));
      await other.subscribe('t', (m) => heard.other!.push(m));
      await two.subscribe('another topic', (m) => heard.two!.push(`wrong topic: ${m}`));
      assert.ok(await two.publish('t', 'first') >= 2, 'at least the two subscribed connections received it');
      await one.publish('t', 'second');
      assert.ok(await eventually(async () => heard.one!.length === 2 && heard.two!.length === 2));
      assert.deepEqual(heard, { one: ['first', 'second'], two: ['first', 'second'], other: [] });

      await stopOne();
      await two.publish('t', 'third');
      assert.ok(await eventually(async () => heard.two!.length === 3));
      assert.deepEqual(heard.one, ['first', 'second'], 'an unsubscribed listener hears nothing more');
    });

    it('hears one publisher\'s messages in the order published, large ones included, byte for byte', async () => {
      const scope = uniqueId('o');
      const [publisher, subscriber] = [await open(scope), await open(scope)];
      const heard: string[] = [];
      await subscriber.subscribe('ordered', (m) => heard.push(m));
      const large = `${'ação 🙂 '.repeat(8 * 1024)}end`;
      const sent = ['a', large, 'b', `${large}2`, 'c'];
      for (const message of sent) await publisher.publish('ordered', message);
      assert.ok(await eventually(async () => heard.length === sent.length), `heard ${heard.length} of ${sent.length}`);
      assert.deepEqual(heard.map((m) => m.length), sent.map((m) => m.length));
      assert.deepEqual(heard, sent);
    });

    const outage = harness.outage;
    if (!outage) return;
    /** Runs `body` with a proxy to the back end, cut afterwards whatever happens. */
    const throughProxy = async (body: (proxy: TcpProxy) => Promise<void>) => {
      const proxy = new TcpProxy(outage.server.host, outage.server.port);
      await proxy.start();
      try {
        await body(proxy);
      } finally {
        await proxy.cut();
      }
    };
    /**
     * Runs `body` with a storage of a new scope reached through a proxy (subscribed to `t`: what it hears and
     * how often its subscriptions came back are counted) and another reaching the store directly.
     */
    const withProxiedSubscriber = (body: (at: {
      proxy: TcpProxy; proxied: StorageSignals; direct: StorageSignals; heard: string[]; restored: () => number;
    }) => Promise<void>) => throughProxy(async (proxy) => {
      const scope = uniqueId('x');
      const storage = await outage.create(scope, proxy.port);
      stores.push(storage);
      await storage.init();
      const [proxied, direct] = [storage.signals!(), await open(scope)];
      const heard: string[] = [];
      let restored = 0;
      await proxied.subscribe('t', (m) => heard.push(m));
      proxied.onReconnect(() => restored++);
      await body({ proxy, proxied, direct, heard, restored: () => restored });
    });
    /** Publishes `after` directly until the proxied subscriber hears it (it subscribed again). */
    const heardAgain = (direct: StorageSignals, heard: string[]) => eventually(async () => {
      await direct.publish('t', 'after');
      return heard.includes('after');
    }, 100);

    it('publish fails with ServiceUnavailableError while the store is unreachable; the subscriptions come back, onReconnect fires, and what was published meanwhile is missed', async () => {
      await withProxiedSubscriber(async ({ proxy, proxied, direct, heard, restored }) => {
        await proxy.cut();
        await assert.rejects(proxied.publish('t', 'lost'), ServiceUnavailableError);
        await direct.publish('t', 'missed');
        await proxy.restore();
        assert.ok(await eventually(async () => restored() === 1, 200), 'onReconnect fired once the link was back');
        assert.ok(await heardAgain(direct, heard), 'subscribed again');
        assert.ok(!heard.includes('missed'), 'at most once: what was published meanwhile is missed');
      });
    });

    it('a subscribed connection that went silent is found and replaced: subscriptions come back and onReconnect fires', async () => {
      await withProxiedSubscriber(async ({ proxy, direct, heard, restored }) => {
        proxy.blackhole();
        await direct.publish('t', 'dropped');
        await new Promise((resolve) => setTimeout(resolve, outage.silentMs));
        await proxy.pass();
        assert.ok(await eventually(async () => restored() >= 1, 200), 'onReconnect fired once a new connection subscribed');
        assert.ok(await heardAgain(direct, heard));
        assert.ok(!heard.includes('dropped'));
      });
    });
  });
}
