import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { serviceUrlOrSkip, TcpProxy } from '@parley/testkit';
import { deleteKeys } from '@parley/storage-redis/testing';
import { ServerChild } from '../support/server-child.js';

const redisUrl = serviceUrlOrSkip('REDIS_URL', 'a sandbox wake-up lost between two server processes');

const ALICE = '5511975100001';
const BOB = '5511975100002';

/**
 * Two server processes on one Redis; alice's process A reaches it through a proxy the test refuses
 * right after A wrote a packet to bob's inbox, so the wake-up A publishes after the simulated latency
 * never leaves it. Bob's process B reads its phones' inboxes again every `inboxRecheckMs`: the packet
 * arrives anyway, without bob reconnecting.
 */
if (redisUrl) describe('the sandbox network when a wake-up is lost', () => {
  const prefix = `parley-e2e-lost-wake-${process.pid}-${Date.now()}:`;
  const target = new URL(redisUrl);
  const proxy = new TcpProxy(target.hostname, Number(target.port || 6379));
  const dirs: string[] = [];
  let nodeA: ServerChild;
  let nodeB: ServerChild;
  let alice: { key: string };
  let bob: { key: string };

  before(async () => {
    await proxy.start();
    const start = (url: string, sandbox: Record<string, unknown>) => {
      const dir = mkdtempSync(join(tmpdir(), 'parley-node-'));
      dirs.push(dir);
      return ServerChild.start(dir, {}, { sandbox, storage: { package: '@parley/storage-redis', options: { url, keyPrefix: prefix, commandTimeoutMs: 500 } } });
    };
    // A hands packets over 1.5 s after writing them: time for the test to cut its link in between.
    [nodeA, nodeB] = await Promise.all([
      start(`redis://127.0.0.1:${proxy.port}`, { latencyMs: 1500 }),
      start(redisUrl, { inboxRecheckMs: 1000 }),
    ]);
    alice = await nodeA.connectedSandbox({ name: 'alice', options: { number: ALICE } });
    bob = await nodeB.connectedSandbox({ name: 'bob', options: { number: BOB } });
  });
  after(async () => {
    await Promise.all([nodeA?.kill('SIGKILL'), nodeB?.kill('SIGTERM')]);
    await proxy.cut();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await deleteKeys(redisUrl, prefix);
  });

  it('a packet whose wake-up was never published still reaches the online phone on the other process', async () => {
    const sent = await nodeA.request('POST', `/${alice.key}/message/text`, { to: BOB, text: 'written, then the link went' });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    // In bob's inbox now; A's wake-up is due in 1.5 s, with no link to publish it on.
    await proxy.refuse();
    const id = sent.body.data.key.id as string;
    const deadline = performance.now() + 10_000;
    while (!nodeA.stderr.join('').includes('sandbox relay: signal not sent')) {
      assert.ok(performance.now() < deadline, 'A never tried to publish the wake-up');
      await new Promise((r) => setTimeout(r, 100));
    }
    for (;;) {
      const res = await nodeB.request('GET', `/${bob.key}/chat/${ALICE}@s.whatsapp.net/messages?limit=10`);
      if (res.status === 200 && (res.body.data as { key: { id: string } }[]).some((m) => m.key.id === id)) break;
      assert.ok(performance.now() < deadline, 'the packet never reached bob (its wake-up was lost and his inbox was not read again)');
      await new Promise((r) => setTimeout(r, 200));
    }
  });
});
