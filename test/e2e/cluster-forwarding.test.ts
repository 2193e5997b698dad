import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ulidFloor } from '@parley/core';
import { RedisStorage } from '@parley/storage-redis';
import { startMockGraph, signatureHeader, type MockGraph } from '@parley/meta-graph/testing';
import { serviceUrlOrSkip, startHttpReceiver, type HttpReceiver } from '@parley/testkit';
import { CLUSTER_ADMIN_TOKEN, freePort, NodeProcess } from '@parley/testkit/host';
import { createSandboxInstances, tearDownCluster, until, type Instance } from '../support/cluster-load.js';
import { textOf } from '../support/event-streams.js';
import { metaFixture } from '../support/meta-channels.js';
import { IG_ACCOUNT, IG_LINK, IG_SECRET, midOf } from '../support/social-server.js';
import { SseClient } from '../support/sse-client.js';
import { WsClient } from '../support/ws-client.js';

const NODES = ['n1', 'n2', 'n3'];

/**
 * Three Parley nodes as separate processes (the real CLI) on one Redis: an instance's WebSocket event
 * stream opened on any node is proxied to the owner and resumes at the new owner after a handover,
 * the admin-wide stream of any node carries the events of every node's instances, and a signed Meta
 * webhook reaching a node that does not run its instance is checked there and ingested by the owner.
 */
describe('cluster: event streams through any node', () => {
  const redisUrl = serviceUrlOrSkip('REDIS_URL', 'event streams across cluster nodes');
  if (!redisUrl) return;
  const keyPrefix = `parley-test:cluster-fwd:${process.pid}-${randomBytes(4).toString('hex')}:`;
  const dir = mkdtempSync(join(tmpdir(), 'parley-cluster-fwd-'));
  const nodes = new Map<string, NodeProcess>();
  const storage = new RedisStorage({ url: redisUrl, keyPrefix });
  let instances: Instance[] = [];
  let graph: MockGraph;
  let receiver: HttpReceiver;
  const node = (id: string) => nodes.get(id)!;
  const ws = (id: string) => node(id).url.replace(/^http/, 'ws');
  const ownerOf = async (instance: Instance) => (await storage.cluster().owners([instance.id])).get(instance.id)?.node;
  const send = async (via: string, from: Instance, to: Instance, text: string) => {
    const res = await node(via).request('POST', `/${from.key}/message/text`, { to: to.number, text });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };

  before(async () => {
    await storage.init();
    graph = await startMockGraph();
    receiver = await startHttpReceiver();
    const ports = await Promise.all(NODES.map(() => freePort()));
    const plugins = [{ package: '@parley/channel-instagram', options: { graphBaseUrl: graph.url, profileLookup: false } }];
    // Launched first and kept, so that `after` stops every process even when one is not ready in time.
    for (const [i, id] of NODES.entries()) nodes.set(id, NodeProcess.launch({ id, port: ports[i]!, redisUrl, keyPrefix, dir, plugins }));
    await Promise.all([...nodes.values()].map((n) => n.ready(60_000)));
    instances = await createSandboxInstances(node('n1'), NODES.map(node), 6, '551197300000');
  });

  after(() => tearDownCluster({ nodes: nodes.values(), closers: [graph, receiver, storage], redisUrl, keyPrefix, dir }));

  it('proxies an instance\'s WebSocket from any node to its owner, refuses bad input locally, and resumes at the new owner after a handover', async () => {
    const [bob, alice] = [instances[0]!, instances[1]!];
    const owner = (await ownerOf(bob))!;
    const via = NODES.find((n) => n !== owner)!;
    const stream = new WsClient(`${ws(via)}/${bob.key}/events`);
    // The same stream over SSE, forwarded like any request.
    const sse = new SseClient(`${node(via).url}/${bob.key}/events`);
    await Promise.all([stream.settled, sse.opened]);
    assert.equal(stream.refused, undefined);
    assert.equal(sse.status, 200);
    await send(via, alice, bob, 'ws one');
    await send(owner, alice, bob, 'ws two');
    const messages = (c: WsClient) => c.events.filter((m) => m.event === 'message').map((m) => textOf(m.data));
    const sseMessages = () => sse.events.filter((f) => f.event === 'message').map((f) => textOf(JSON.parse(f.data!)));
    await until(async () => messages(stream).length === 2 && sseMessages().length === 2, 'both messages on the proxied and the forwarded stream');
    assert.deepEqual(messages(stream), ['ws one', 'ws two']);
    assert.deepEqual(sseMessages(), ['ws one', 'ws two']);
    for (const m of stream.events) assert.equal(m.data.instance, bob.id);

    // Bad input is answered by the node the client reached, before anything is forwarded.
    for (const [url, status, code] of [
      [`${ws(via)}/${bob.key}/events?after=bad`, 400, 'validation_failed'],
      [`${ws(via)}/unknownKeyunknownKeyunknownKey00/events`, 404, 'instance_not_found'],
    ] as const) {
      const refused = new WsClient(url);
      await refused.settled;
      assert.deepEqual([refused.refused?.status, refused.refused?.body.error.code], [status, code], url);
    }
    // An upgrade claiming to be forwarded needs the cluster secret (401, logged).
    const forged = new WsClient(`${ws(owner)}/${bob.key}/events`, { headers: { 'x-parley-forwarded-by': via, 'x-parley-cluster-secret': 'not-the-secret-000000' } });
    await forged.settled;
    assert.deepEqual([forged.refused?.status, forged.refused?.body.error.code], [401, 'unauthorized']);
    await until(async () => node(owner).logs('forwarded request refused: wrong or missing cluster secret').some((l) => l.route === 'WebSocket /:key/events'), 'the refusal is logged');

    // A handover (an admin move) ends the stream at the old owner: the client reconnects through the
    // same node with its last id and gets what it missed once, then live events from the new owner.
    const target = NODES.find((n) => n !== owner && n !== via) ?? via;
    const moved = await node(via).request('POST', `/admin/instances/${bob.id}/move`, { node: target }, {}, true);
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    // Both streams end (an open stream does not hold the hand-over back).
    await Promise.all([stream.closed, sse.closed]);
    const last = stream.events.at(-1)!.id!;
    await send(via, alice, bob, 'ws three');
    await until(async () => (await ownerOf(bob)) === target, 'bob reaches its new node');
    const resumed = new WsClient(`${ws(via)}/${bob.key}/events?after=${last}`);
    await resumed.settled;
    await send(target, alice, bob, 'ws four');
    await until(async () => messages(resumed).includes('ws four'), 'the live message after the resume');
    assert.deepEqual([...messages(stream), ...messages(resumed)], ['ws one', 'ws two', 'ws three', 'ws four']);
    const ids = [...stream.events, ...resumed.events].map((m) => m.id!);
    assert.deepEqual(ids, [...new Set(ids)].sort(), 'every event once, in id order across the two connections');

    // Closing the client closes the owner's stream (no stream left open there).
    resumed.ws.close();
    await resumed.closed;
    await until(async () => (await metric(node(target), 'parley_event_streams_open')) === 0, 'the owner closed its end');
  });

  it('carries the events of every node\'s instances on the admin stream of any node (SSE and WebSocket)', async () => {
    const placed = await Promise.all(instances.map(async (i) => [i, await ownerOf(i)] as const));
    const byNode = NODES.map((n) => placed.find(([, owner]) => owner === n)?.[0]);
    assert.ok(byNode.every(Boolean), `every node owns an instance: ${JSON.stringify(placed.map(([i, o]) => [i.id, o]))}`);
    const sse = new SseClient(`${node('n2').url}/admin/events`, { authorization: `Bearer ${CLUSTER_ADMIN_TOKEN}` });
    await sse.opened;
    assert.equal(sse.status, 200);
    const socket = new WsClient(`${ws('n3')}/admin/events`, { headers: { Authorization: `Bearer ${CLUSTER_ADMIN_TOKEN}` } });
    await socket.settled;
    const texts: string[] = [];
    const startedAt = Date.now() - 1;
    for (const [n, to] of byNode.entries()) {
      const from = instances.find((i) => i !== to)!;
      const text = `admin ${n}`;
      texts.push(text);
      await send(NODES[n]!, from, to!, text);
    }
    // The receiving instance's message events (the sender's own copy has fromMe true).
    const received = (events: { instance: string; type: string; payload: any }[]) => events
      .filter((e) => e.type === 'message' && e.payload.data.message.fromMe === false && texts.includes(textOf(e.payload)!))
      .map((e) => `${e.instance} ${textOf(e.payload)}`);
    const want = byNode.map((to, n) => `${to!.id} admin ${n}`).sort();
    const viaSse = () => received(sse.events.map((f) => ({ ...(JSON.parse(f.data!) as { instance: string; payload: unknown }), type: f.event! })));
    const viaWs = () => received(socket.events.map((m) => ({ instance: m.data.instance, type: m.event, payload: m.data.payload })));
    await until(async () => viaSse().length >= 3 && viaWs().length >= 3, 'the three messages on both admin streams');
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(viaSse().sort(), want, 'each once on the SSE admin stream of n2');
    assert.deepEqual(viaWs().sort(), want, 'each once on the WebSocket admin stream of n3');
    sse.close();
    socket.ws.close();
    await socket.closed;
    // A resume on a third node replays them from the shared log, once each.
    const resumed = new WsClient(`${ws('n1')}/admin/events?after=${ulidFloor(startedAt)}`, { headers: { Authorization: `Bearer ${CLUSTER_ADMIN_TOKEN}` } });
    const viaResume = () => received(resumed.events.map((m) => ({ instance: m.data.instance, type: m.event, payload: m.data.payload })));
    await until(async () => viaResume().length >= 3, 'the three messages replayed on n1');
    assert.deepEqual(viaResume().sort(), want);
    resumed.ws.close();
    await resumed.closed;
  });

  it('forwards a Cloud API send, authenticated by its bearer token, from a node that does not run the instance to its owner', async () => {
    const [from, to] = [instances[2]!, instances[3]!];
    const owner = await ownerOf(from);
    const via = NODES.find((n) => n !== owner)!;
    const res = await fetch(`${node(via).url}/v21.0/${from.id}/messages`, {
      method: 'POST', headers: { authorization: `Bearer ${from.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ messaging_product: 'whatsapp', to: to.number, type: 'text', text: { body: 'through the cluster' } }),
    });
    const answer = await res.json() as { messages: { id: string }[] };
    assert.equal(res.status, 200, JSON.stringify(answer));
    const stored = await node(via).request('GET', `/${from.key}/message/${answer.messages[0]!.id}`);
    assert.equal(stored.status, 200, JSON.stringify(stored.body));
    const wrong = await fetch(`${node(via).url}/v21.0/${from.id}/messages`, { method: 'POST', headers: { authorization: 'Bearer nope', 'content-type': 'application/json' }, body: '{}' });
    assert.deepEqual([wrong.status, ((await wrong.json()) as { error: { code: number } }).error.code], [401, 190]);
  });

  it('checks a signed Instagram webhook on the node it reaches and has the owner ingest it: 200, one event, redeliveries dropped', async () => {
    const created = await node('n1').request('POST', '/admin/instances', {
      channel: 'sandbox', name: 'shop', options: { number: '5511973000099' },
      webhook: { allowWebhook: true, webhookFormat: 'native', webhookMessage: `${receiver.url}/shop` },
    }, {}, true);
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const shop = created.body.data as { id: string; key: string };
    graph.on('GET', `/v26.0/${IG_ACCOUNT}`, { status: 200, body: { id: IG_ACCOUNT, username: 'parley.shop', name: 'Parley Shop' } });
    const linked = await node('n2').request('POST', `/${shop.key}/instance/links/instagram`, IG_LINK);
    assert.equal(linked.status, 200, JSON.stringify(linked.body));
    const owner = (await storage.cluster().owners([shop.id])).get(shop.id)!.node;
    const others = NODES.filter((n) => n !== owner);
    const body = metaFixture('instagram', 'ig-text');
    const mid = midOf('instagram', 'ig-text');
    const post = (via: string, signature: string) => fetch(`${node(via).url}/instagram/webhook`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature }, body: new Uint8Array(body),
    }).then(async (res) => ({ status: res.status, body: await res.json() as unknown }));

    // A wrong signature is dropped by the receiving node itself (answered as an unlinked account's notification).
    assert.deepEqual(await post(others[0]!, signatureHeader(body, 'not-the-app-secret')), { status: 200, body: { received: 0 } });
    const first = await post(others[0]!, signatureHeader(body, IG_SECRET));
    assert.deepEqual(first, { status: 200, body: { received: 1 } });
    // Meta redelivers (here through the other non-owner): acknowledged, nothing emitted again.
    const again = await post(others[1]!, signatureHeader(body, IG_SECRET));
    assert.deepEqual(again, { status: 200, body: { received: 0 } });

    const messages = () => receiver.requests.filter((r) => r.url === '/shop').map((r) => r.json as { id: string; type: string; data: any })
      .filter((e) => e.type === 'message' && e.data.message.id === mid);
    await until(async () => messages().length > 0, 'the message event\'s webhook');
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(messages().length, 1, 'the event is produced once, by the owner');
    assert.equal((await ownerOf({ id: shop.id } as Instance)), owner, 'the instance did not move');
    const stored = await node(others[1]!).request('GET', `/${shop.key}/chat`);
    assert.equal(stored.status, 200, JSON.stringify(stored.body));
    assert.ok(stored.body.data.some((c: { id: string }) => c.id === JSON.parse(body.toString()).entry[0].messaging[0].sender.id), JSON.stringify(stored.body));
  });
});

/** A gauge of a node's `GET /metrics` (summed over its labels). */
async function metric(node: NodeProcess, name: string): Promise<number> {
  const res = await fetch(`${node.url}/metrics`, { headers: { authorization: `Bearer ${CLUSTER_ADMIN_TOKEN}` } });
  const lines = (await res.text()).split('\n').filter((l) => l.startsWith(name) && !l.startsWith('#'));
  return lines.reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
}

