import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RedisStorage } from '@parley/storage-redis';
import { freePort, NodeProcess } from '@parley/testkit/host';
import { createSandboxInstances, storedMessageIds, until, type Instance } from '../support/cluster-load.js';
import { connectMcp, toolJson, type McpTestClient } from '../support/mcp-client.js';
import { PrivateRedis } from '@parley/storage-redis/testing';
import { RoundRobinProxy } from '../support/round-robin-proxy.js';

/** Leases that outlast a 1 s Redis restart on a loaded machine (as in cluster-redis-restart.test.ts). */
const TIMING = { leaseTtlMs: 8000, renewIntervalMs: 1000, driftMarginMs: 500 };
/** Generous bounds: the machine is loaded, a move and a reconnection can take seconds. */
const WAIT_MS = 30_000;

/**
 * MCP in a cluster (docs/mcp.md, *In a cluster*): an agent's session opened on a node that does not
 * run its instance lists the tools, sends through them (forwarded to the owner as REST calls) and is
 * told of the instance's new messages, fed by the cluster's event fan-in; after the instance moves to
 * the session's node, and back, the notifications keep coming without the client doing anything.
 * The nodes run on a private `redis-server`, which the last case restarts: the other nodes' events are
 * told over Redis pub/sub (at most once), so a session whose node lost its link is told that every
 * subscribed resource may have changed.
 */
describe('cluster: an MCP session on any node', () => {
  const keyPrefix = 'parley:';
  const dir = mkdtempSync(join(tmpdir(), 'parley-cluster-mcp-'));
  let redis: PrivateRedis;
  let storage: RedisStorage;
  const nodes = new Map<string, NodeProcess>();
  let alice: Instance;
  let bob: Instance;
  let mcp: McpTestClient | undefined;

  const ownerOf = async (instance: Instance) => (await storage.cluster().owners([instance.id])).get(instance.id)?.node;
  const node = (id: string) => nodes.get(id)!;
  const chatsUri = () => `parley://instances/${alice.id}/chats`;
  const messagesUri = () => `parley://instances/${alice.id}/chats/${encodeURIComponent(`${bob.number}@s.whatsapp.net`)}/messages`;

  before(async () => {
    redis = new PrivateRedis(await freePort(), dir);
    await redis.start();
    storage = new RedisStorage({ url: redis.url, keyPrefix });
    await storage.init();
    for (const id of ['p1', 'p2']) nodes.set(id, await NodeProcess.start({ id, port: await freePort(), redisUrl: redis.url, keyPrefix, dir, cluster: TIMING }));
    // Three instances on two nodes: 2 and 1, within each node's fair share (2) whichever way alice moves, so no rebalancing moves her.
    [alice, bob] = await createSandboxInstances(node('p1'), [...nodes.values()], 3, '551197400000');
  });
  after(async () => {
    await mcp?.close().catch(() => undefined);
    await Promise.all([...nodes.values()].map((n) => n.stop('SIGKILL')));
    await storage?.close();
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Bob writes to alice through `via`; resolves once the session was told alice's chat with bob changed. */
  const toldOfMessage = async (via: NodeProcess, text: string) => {
    mcp!.updated.length = 0;
    const sent = await via.request('POST', `/${bob.key}/message/text`, { to: alice.number, text });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    await until(async () => mcp!.updated.includes(messagesUri()) && mcp!.updated.includes(chatsUri()), `the session to be told of "${text}"`, WAIT_MS);
    // Alice has it: the notification tells of something the agent can read.
    const [content] = (await mcp!.client.readResource({ uri: messagesUri() })).contents;
    assert.ok(content && 'text' in content);
    assert.ok((JSON.parse(content.text) as { key: { id: string } }[]).some((m) => m.key.id === sent.body.data.key.id), 'the message is in the resource');
  };

  /** Resolves once the session (the first one by default) was told nothing for 2 s (bounded). */
  const quiet = async (client = mcp!) => {
    const end = performance.now() + WAIT_MS;
    for (let seen = -1; seen !== client.updated.length; await new Promise((r) => setTimeout(r, 2000))) {
      if (performance.now() > end) assert.fail('the session is told of changes without end');
      seen = client.updated.length;
    }
  };

  /** Moves alice to `to` through the admin API and waits until that node runs her. */
  const move = async (to: string) => {
    const res = await node(to).request('POST', `/admin/instances/${alice.id}/move`, { node: to }, {}, true);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await until(async () => (await ownerOf(alice)) === to && (await node(to).request('GET', `/${alice.key}/instance`)).body?.instance?.phoneConnected === true,
      `alice to run on ${to}`, WAIT_MS);
  };

  it('a session on the non-owner lists the tools, sends through them and is told of the instance\'s new messages', async () => {
    const owner = (await ownerOf(alice))!;
    const other = owner === 'p1' ? 'p2' : 'p1';
    mcp = await connectMcp(node(other), alice.key);
    const { tools } = await mcp.client.listTools();
    assert.ok(tools.some((t) => t.name === 'send_text') && tools.some((t) => t.name === 'list_chats'));

    // A tool is the REST call, which the session's node forwards to the owner.
    const sent = toolJson(await mcp.client.callTool({ name: 'send_text', arguments: { to: bob.number, text: 'hello from an agent on the other node', idempotencyKey: 'agent-1' } }));
    assert.equal(sent.status, 200);
    const id = sent.data.key.id as string;
    await until(async () => (await storedMessageIds(node(other), bob.key, alice.number)).has(id), 'bob to receive the agent\'s message', WAIT_MS);

    await mcp.client.subscribeResource({ uri: messagesUri() });
    await mcp.client.subscribeResource({ uri: chatsUri() });
    await toldOfMessage(node(owner), 'are you there?');
    await toldOfMessage(node(other), 'through the session\'s node');
  });

  it('after alice moves to the session\'s node, and back, the same session is still told, and its tools still send', async () => {
    const session = mcp!.transport.sessionId;
    const away = (await ownerOf(alice))!;
    const here = away === 'p1' ? 'p2' : 'p1';
    await move(here);
    await toldOfMessage(node(away), 'now on your node');
    await move(away);
    await toldOfMessage(node(here), 'and back on the other');
    assert.equal(mcp!.transport.sessionId, session, 'the same session throughout');
    const sent = toolJson(await mcp!.client.callTool({ name: 'send_text', arguments: { to: bob.number, text: 'still here' } }));
    await until(async () => (await storedMessageIds(node(here), bob.key, alice.number)).has(sent.data.key.id), 'bob to receive the send after the moves', WAIT_MS);
  });

  it('behind a load balancer without affinity, a session\'s requests reach any node and are served by the node holding it', async () => {
    const lb = await RoundRobinProxy.start([node('p1').url, node('p2').url]);
    const agent = await connectMcp(lb, alice.key);
    try {
      const holder = agent.transport.sessionId!.slice(0, agent.transport.sessionId!.lastIndexOf('.'));
      assert.ok(nodes.has(holder), `the session id names its node: ${agent.transport.sessionId}`);
      for (let i = 0; i < 4; i++) assert.ok((await agent.client.listTools()).tools.some((t) => t.name === 'send_text'));
      const sent = toolJson(await agent.client.callTool({ name: 'send_text', arguments: { to: bob.number, text: 'through the balancer' } }));
      await agent.client.subscribeResource({ uri: messagesUri() });
      await quiet(agent);
      agent.updated.length = 0;
      const reply = await node('p1').request('POST', `/${bob.key}/message/text`, { to: alice.number, text: 'seen through the balancer' });
      assert.equal(reply.status, 200);
      await until(async () => agent.updated.includes(messagesUri()), 'the balanced session to be told', WAIT_MS);
      await until(async () => (await storedMessageIds(node('p2'), bob.key, alice.number)).has(sent.data.key.id), 'bob to receive the balanced send', WAIT_MS);
      // Both nodes got the session's requests: the one not holding it forwarded them.
      assert.deepEqual(new Set(lb.sentTo.filter((r) => r.method === 'POST').map((r) => r.target)), new Set([node('p1').url, node('p2').url]));
    } finally {
      await agent.close();
      await lb.close();
    }
  });

  it('when the session\'s node lost its link to Redis, it is told every subscribed resource may have changed, and hears new events again', async () => {
    await until(async () => (await storage.cluster().owners([alice.id])).get(alice.id) !== undefined, 'alice to have an owner', WAIT_MS);
    // Quiet first: the statuses of the last send (delivered…) update the same resources.
    await quiet();
    const [last] = (await storage.events.read({ instance: alice.id, limit: 1000 })).slice(-1);
    mcp!.updated.length = 0;
    await redis.stop();
    await new Promise((r) => setTimeout(r, 1000));
    await redis.start();
    await until(async () => mcp!.updated.includes(messagesUri()) && mcp!.updated.includes(chatsUri()), 'the session to be told of both subscriptions', WAIT_MS);
    // No event of alice's told it: the notifications stand for what the outage may have hidden.
    // The test's own Redis client may still be reconnecting after the restart.
    let since: Awaited<ReturnType<typeof storage.events.read>> = [];
    await until(async () => {
      try {
        since = await storage.events.read({ instance: alice.id, ...(last ? { after: last.id } : {}), limit: 100 });
        return true;
      } catch {
        return false;
      }
    }, 'the test\'s Redis client to read again', WAIT_MS);
    assert.deepEqual(since.filter((e) => e.type.startsWith('message') || e.type.startsWith('chats') || e.type === 'history').map((e) => e.type), []);
    await until(async () => (await node('p1').request('GET', '/readyz')).status === 200 && (await node('p2').request('GET', '/readyz')).status === 200, 'both nodes ready again', WAIT_MS);
    const owner = (await ownerOf(alice))!;
    await toldOfMessage(node(owner === 'p1' ? 'p2' : 'p1'), 'after the outage');
  });
});
