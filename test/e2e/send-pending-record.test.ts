import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort } from '@parley/testkit/host';
import { PrivateRedis } from '@parley/storage-redis/testing';
import { NO_PACING } from '../support/queue.js';
import { ServerChild } from '../support/server-child.js';

const A = '5511963000001';
const B = '5511963000002';
const TYPING_MS = 1500;
/** Short: the failed send's entry is claimed again soon after Redis takes writes again. */
const QUEUE = { enabled: true, maxQueued: 100, leaseMs: 3000, recheckMs: 50, concurrency: 4 };

/**
 * Issue 24 item 2's `PENDING` record: a send whose way out fails (the storage refuses writes while the
 * sandbox writes the packet to the recipient's inbox) must not leave a stored `PENDING` record with
 * nothing queued. The sandbox reported the sender's own copy of the message before the packet was in
 * the inbox, so a failed send still stored that copy (`PENDING`); the queue, which takes a stored
 * record for the mark of a sent message, then completed the entry without sending: a record `PENDING`
 * for ever, an empty queue, nothing received. Here a private `redis-server` refuses writes
 * (`maxmemory 1`, OOM) while a typed send is on its way, then takes them again: the send is sent once
 * its entry is claimed again, received once, and its record moves on from `PENDING`.
 */
describe('a send failing on its way out leaves no PENDING record behind (real process, private Redis)', () => {
  let dir: string;
  let redis: PrivateRedis;
  let server: ServerChild;
  let a: { key: string };
  let b: { key: string };
  const redisConfig = (name: string, value: string) => execFileSync('redis-cli', ['-p', String(redis.port), 'CONFIG', 'SET', name, value]);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'parley-send-pending-'));
    redis = new PrivateRedis(await freePort(), dir);
    await redis.start();
    server = await ServerChild.start(join(dir, 'data'), { queue: QUEUE }, { storage: { package: '@parley/storage-redis', options: { url: redis.url, keyPrefix: 'p:' } } });
    a = await server.connectedSandbox({ name: 'a', options: { number: A } });
    b = await server.connectedSandbox({ name: 'b', options: { number: B } });
    assert.equal((await server.request('PUT', `/${a.key}/queue/policy`, NO_PACING)).status, 200);
  });
  after(async () => {
    if (redis) redisConfig('maxmemory', '0');
    await server?.kill('SIGKILL');
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the send goes out once Redis takes writes again; its record is not left PENDING', async () => {
    const accepted = await server.request('POST', `/${a.key}/message/text`, { to: B, text: 'through the outage', typing: TYPING_MS });
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    const id = accepted.body.data.key.id as string;
    // The worker holds it and shows typing: refuse writes until it has tried to send it.
    const deadline = Date.now() + 10_000;
    while ((await server.request('GET', `/${a.key}/message/${id}`)).body.data?.queue?.state !== 'sending') {
      assert.ok(Date.now() < deadline, 'the worker takes the send');
      await new Promise((r) => setTimeout(r, 20));
    }
    redisConfig('maxmemory', '1');
    await new Promise((r) => setTimeout(r, TYPING_MS + 500));
    // Within the event bus's retries (2.6 s): an own copy reported meanwhile is stored once writes work.
    redisConfig('maxmemory', '0');

    let record: { status: string; queue?: unknown } | undefined;
    let received: string[] = [];
    const until = Date.now() + 30_000;
    for (;;) {
      const res = await server.request('GET', `/${b.key}/chat/${A}/messages?limit=100`);
      received = res.status === 200 ? (res.body.data as { key: { id: string } }[]).map((m) => m.key.id) : [];
      record = (await server.request('GET', `/${a.key}/message/${id}`)).body.data;
      if ((received.includes(id) && record?.status !== 'PENDING') || Date.now() > until) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    assert.deepEqual(received, [id], 'received once');
    assert.equal(record?.queue, undefined, 'no longer queued');
    assert.notEqual(record?.status, 'PENDING');
    assert.deepEqual((await server.request('GET', `/${a.key}/queue`)).body.data, []);
  });
});
