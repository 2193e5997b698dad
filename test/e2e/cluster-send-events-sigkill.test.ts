import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RedisStorage } from '@parley/storage-redis';
import { serviceUrlOrSkip, startHttpReceiver, TcpProxy, type HttpReceiver } from '@parley/testkit';
import { freePort, NodeProcess } from '@parley/testkit/host';
import { deliveredEvents, untilNoEventLost } from '../support/cluster-invariants.js';
import { createSandboxInstances, tearDownCluster, until, type Instance } from '../support/cluster-load.js';

/** Short cluster leases keep the test short: the dead owner's instances are free 3 s after its last renewal. */
const TIMING = { leaseTtlMs: 3000, renewIntervalMs: 1000, driftMarginMs: 500 };
/** The text of the send, found in the owner's Redis traffic by the proxy's tripwire. */
const TEXT = `cut-off-${randomBytes(6).toString('hex')}`;

/**
 * Issue 24 (`cluster.test.ts`'s SIGKILL run lost a `sent` webhook one run in three): the owner of an
 * instance is killed (SIGKILL) exactly after the channel took a send and its record was stored, as it
 * tries to queue the send's own copy for its webhooks — its Redis link runs through a proxy of the
 * test that drops that write and every later one, and the test kills the node there. The instance's new
 * owner finds the send's record stored and its queue entry not completed: the sandbox reports the own
 * copy and `sent` again (neither is in the event log), so every webhook of the send's lifecycle arrives,
 * each event once, and the message is not sent a second time.
 */
describe('cluster: an owner killed between a send\'s record and its webhooks', () => {
  const redisUrl = serviceUrlOrSkip('REDIS_URL', 'cluster send events across SIGKILL');
  if (!redisUrl) return;
  const keyPrefix = `parley-test:send-events-kill:${process.pid}-${randomBytes(4).toString('hex')}:`;
  const dir = mkdtempSync(join(tmpdir(), 'parley-send-events-kill-'));
  const storage = new RedisStorage({ url: redisUrl, keyPrefix });
  const redis = new URL(redisUrl);
  const proxy = new TcpProxy(redis.hostname, Number(redis.port || 6379));
  const nodes = new Map<string, NodeProcess>();
  let receiver: HttpReceiver;
  let sender: Instance;
  let peer: Instance;
  let killed: Promise<unknown> | undefined;

  before(async () => {
    await storage.init();
    await proxy.start();
    receiver = await startHttpReceiver();
    const viaProxy = new URL(redisUrl);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    // The only node while the instances are created: it owns both.
    const owner = await NodeProcess.start({ id: 'k1', port: await freePort(), redisUrl: viaProxy.toString(), keyPrefix, dir, cluster: TIMING });
    nodes.set('k1', owner);
    [sender, peer] = await createSandboxInstances(owner, [owner], 2, '551197400000', `${receiver.url}/hook`);
  });

  after(async () => {
    await tearDownCluster({ nodes: nodes.values(), closers: [receiver, storage], redisUrl, keyPrefix, dir });
    await proxy.cut();
  });

  it('the new owner reports the own copy and `sent` the killed owner never queued, once, and sends nothing again', async () => {
    const owner = nodes.get('k1')!;
    // The sender's own copy on its way to the event log (and webhook queue): the record was stored just before.
    proxy.tripOn((text) => text.includes(TEXT) && text.includes('"type":"message"') && text.includes(sender.id), () => {
      killed = owner.stop('SIGKILL');
    });
    const since = Date.now();
    const answer = await owner.request('POST', `/${sender.key}/message/text`, { to: peer.number, text: TEXT }).catch((err: unknown) => err);
    assert.ok(answer instanceof Error, `the request died with its node, answered ${JSON.stringify(answer)}`);
    assert.ok(killed, 'the tripwire killed the owner');
    await killed;

    // What the kill left: the record stored, the entry still queued, none of the sender's events of it logged.
    const { items } = await storage.outbound.list(sender.id, { limit: 10, offset: 0 });
    assert.equal(items.length, 1, 'the send\'s queue entry is not completed');
    const id = items[0]!.id;
    assert.ok(await storage.messages.get(sender.id, id), 'its record is stored');
    const logged = await storage.events.read({ instance: sender.id, limit: 1000 });
    assert.deepEqual(logged.filter((e) => e.event.includes(id)), [], 'none of its events is logged');

    nodes.set('k2', await NodeProcess.start({ id: 'k2', port: await freePort(), redisUrl, keyPrefix, dir, cluster: TIMING }));
    const survivor = nodes.get('k2')!;
    await untilNoEventLost(receiver, storage, [sender, peer], new Map([[sender.id, [id]]]), (i) => (i === sender ? peer : sender), since, 40_000);
    await until(async () => (await storage.outbound.count(sender.id)) === 0, 'the entry to be completed', 10_000);

    // Each event of the send once: the own copy and `sent` in the log once, one message at the peer.
    const ofSend = (await storage.events.read({ instance: sender.id, limit: 1000 })).filter((e) => e.event.includes(id))
      .map((e) => ({ type: e.type, status: (JSON.parse(e.event) as { status?: string }).status }));
    assert.deepEqual(ofSend.filter((e) => e.type === 'message').length, 1, JSON.stringify(ofSend));
    assert.deepEqual(ofSend.filter((e) => e.status === 'sent').length, 1, JSON.stringify(ofSend));
    const delivered = [...deliveredEvents(receiver).values()];
    assert.equal(delivered.filter((e) => e.instance === peer.id && e.type === 'message' && e.data.message.id === id).length, 1, 'the peer got it once');
    const atPeer = await survivor.request('GET', `/${peer.key}/chat/${sender.number}@s.whatsapp.net/messages?limit=100`);
    assert.equal((atPeer.body.data as { key: { id: string } }[]).filter((m) => m.key.id === id).length, 1);
  });
});
