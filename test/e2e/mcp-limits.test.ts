import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FakeClock } from '@parley/testkit';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { startWithPhones } from '../support/conversation.js';
import { connectMcp, mcpError, toolJson } from '../support/mcp-client.js';
import { MessagingPair } from '../support/messaging.js';
import { NO_PACING, setPolicy, textsAt } from '../support/queue.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const HEADERS = { accept: 'application/json, text/event-stream' };
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

describe('MCP sessions are bounded in number and idle time', () => {
  const clock = new FakeClock();
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ clock, config: { mcp: { enabled: true, maxSessions: 2, maxSessionsPerInstance: 1, idleSeconds: 60 } } });
  });
  after(() => t?.stop());

  const open = (key: string) => t.request('POST', '/mcp', INITIALIZE, { ...HEADERS, authorization: `Bearer ${key}` });
  const list = (key: string, session: string) => t.request('POST', '/mcp', { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { ...HEADERS, authorization: `Bearer ${key}`, 'mcp-session-id': session });

  it('refuses a session past the per-instance and the server bound (429), and frees idle ones', async () => {
    const [a, b, c] = [await t.createInstance(), await t.createInstance(), await t.createInstance()];
    const first = await open(a.key);
    assert.equal(first.status, 200);
    const session = first.headers.get('mcp-session-id')!;
    const again = await open(a.key);
    assert.equal(again.status, 429);
    assert.equal(again.body.error.code, 'too_many_mcp_sessions');
    assert.equal((await open(b.key)).status, 200);
    assert.match((await open(c.key)).body.error.message, /the server's 2 MCP sessions are open/);
    // a's session is used 30 s in; at 61 s b's (idle since it opened) is closed for c, a's stays.
    clock.advance(30_000);
    assert.equal((await list(a.key, session)).status, 200);
    clock.advance(31_000);
    assert.equal((await open(c.key)).status, 200);
    assert.equal((await list(a.key, session)).status, 200);
    clock.advance(61_000);
    assert.equal((await open(b.key)).status, 200);
    const expired = await list(a.key, session);
    assert.equal(expired.status, 404);
    assert.equal(expired.body.error.code, 'mcp_session_not_found');
  });

  it('is not served when mcp.enabled is false', async () => {
    const off = await startTestServer({ config: { mcp: { enabled: false, maxSessions: 1, maxSessionsPerInstance: 1, idleSeconds: 60 } } });
    try {
      const created = await off.createInstance();
      const res = await off.request('POST', '/mcp', INITIALIZE, { ...HEADERS, authorization: `Bearer ${created.key}` });
      assert.equal(res.status, 404);
      assert.equal((off.server.openapi.paths as Record<string, unknown>)['/mcp'], undefined);
    } finally {
      await off.stop();
    }
  });
});

describe('MCP credentials are counted by the failure limiter', () => {
  it('wrong bearers on /mcp block the address (429 with Retry-After); a valid key still gets its session', async () => {
    const t = await startTestServer({ config: { rateLimit: { failures: 3, windowSeconds: 60, blockSeconds: 30 }, trustProxy: 'loopback' } });
    try {
      const created = await t.createInstance();
      const from = { 'x-forwarded-for': '203.0.113.28' };
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await t.request('POST', '/mcp', INITIALIZE, { ...HEADERS, ...from, authorization: `Bearer wrong-key-${i}-0123456789abcdef` })).status);
      assert.deepEqual(statuses, [401, 401, 401, 429]);
      const blocked = await t.request('POST', '/mcp', INITIALIZE, { ...HEADERS, ...from });
      assert.equal(blocked.status, 429);
      assert.ok(Number(blocked.headers.get('retry-after')) > 0);
      assert.equal((await t.request('POST', '/mcp', INITIALIZE, { ...HEADERS, ...from, authorization: `Bearer ${created.key}` })).status, 200);
    } finally {
      await t.stop();
    }
  });
});

describe('MCP sends keep the instance\'s policies', () => {
  it('a media URL on a private network is refused as on the REST API (SSRF guard), naming the argument', async () => {
    const { t, phones: { alice, bob } } = await startWithPhones({ alice: '5511900000601', bob: '5511900000602' }, { config: { allowPrivateUrls: false } });
    const mcp = await connectMcp(t, alice.key);
    try {
      const refused = await mcpError(mcp.client.callTool({ name: 'send_image', arguments: { to: bob.number, url: 'http://127.0.0.1:9/a.png' } }));
      assert.equal(refused.code, ErrorCode.InvalidParams);
      assert.match(refused.message, /^MCP error -32602: url points to a private network address/);
      assert.deepEqual((refused.data as { fields: { field: string }[] }).fields.map((f) => f.field), ['url']);
      assert.equal((await t.client(alice.key).call('listChats')).data.length, 0);
    } finally {
      await mcp.close();
      await t.stop();
    }
  });

  it('an agent sending in a loop is paced by the instance\'s queue policy', async () => {
    const p = await MessagingPair.start({}, ['5511900000611', '5511900000612']);
    const mcp = await connectMcp(p.t, p.alice.key);
    try {
      await setPolicy(p, p.alice, { ...NO_PACING, minGapMs: 600_000 });
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(toolJson(await mcp.client.callTool({ name: 'send_text', arguments: { to: p.bob.number, text: `loop ${i}` } })));
      for (const a of answers.slice(1)) assert.ok(['queued', 'scheduled'].includes(a.data.queue.state), JSON.stringify(a.data.queue));
      const queue = toolJson(await mcp.client.callTool({ name: 'queue_status', arguments: {} }));
      assert.deepEqual(queue.data.map((r: { key: { id: string } }) => r.key.id).sort(), answers.slice(1).map((a) => a.data.key.id).sort());
      await p.t.waitFor(() => textsAt(p, p.bob).length === 1, 5000, 'the first text at bob');
      assert.equal(textsAt(p, p.bob)[0]!.text, 'loop 0');
    } finally {
      await mcp.close();
      await p.stop();
    }
  });
});
