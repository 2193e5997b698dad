import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { startWithPhones, type Phone } from '../support/conversation.js';
import { connectMcp, type McpTestClient } from '../support/mcp-client.js';
import type { TestServer } from '../support/test-server.js';

/** A seeded generator (mulberry32): a failing run is replayed with its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const SEED = Number(process.env.MCP_FUZZ_SEED ?? 28_02);
const CALLS = 300;

/**
 * Tool calls with arguments of every wrong shape (wrong types, nulls, empty and huge strings, nested
 * garbage, unknown members, missing required ones). A value never satisfies what it fills: strings
 * carry characters no recipient, id or enum takes, arrays hold such values. Each call must be refused
 * with InvalidParams naming arguments it was given or lacks, or answered as a tool error (a read, or
 * a call without arguments, may succeed); never an internal error, and nothing is sent or created.
 */
describe('MCP tools under random bad arguments', () => {
  let t: TestServer;
  let alice: Phone;
  let bob: Phone;
  let mcp: McpTestClient;
  before(async () => {
    ({ t, phones: { alice, bob } } = await startWithPhones({ alice: '5511900000701', bob: '5511900000702' }));
    mcp = await connectMcp(t, alice.key);
  });
  after(async () => {
    await mcp?.close();
    await t?.stop();
  });

  it(`${CALLS} calls (seed ${SEED}) are refused naming an argument, or answered as tool errors`, async () => {
    const next = random(SEED);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const garbageText = () => pick(['', ' ', '\u0000', '!'.repeat(70_000), 'x y\u202e', '{"$gt": ""}', '../../etc/passwd', '%00%zz']);
    const garbage = (depth = 0): unknown => pick([
      () => garbageText(), () => -1, () => 1e308, () => 0.5, () => true, () => null,
      () => (depth > 1 ? [] : [garbage(depth + 1)]), () => (depth > 1 ? {} : { [garbageText().slice(0, 8) || 'k']: garbage(depth + 1) }),
    ])();
    const { tools } = await mcp.client.listTools();
    const stateBefore = JSON.stringify((await t.client(alice.key).call('listChats')).data);
    const outcomes = { refused: 0, toolErrors: 0 };
    for (let i = 0; i < CALLS; i++) {
      const tool = pick(tools);
      const names = Object.keys(tool.inputSchema.properties ?? {});
      const args: Record<string, unknown> = {};
      for (const name of names) if (next() < 0.6) args[name] = garbage();
      if (next() < 0.3) args[pick(['colour', 'key', 'instance', '__proto__x', 'to '])] = garbage();
      const context = `call ${i} ${tool.name} ${JSON.stringify(args).slice(0, 300)}`;
      try {
        const result = await mcp.client.callTool({ name: tool.name, arguments: args });
        // Only a read, or a call that gave no argument (connect_instance: valid as it is), may succeed.
        const harmless = tool.annotations?.readOnlyHint === true || Object.keys(args).length === 0;
        if (result.isError !== true) assert.ok(harmless, `${context}: answered ${JSON.stringify(result.content).slice(0, 300)}`);
        else outcomes.toolErrors++;
      } catch (err) {
        assert.ok(err instanceof McpError, `${context}: ${String(err)}`);
        assert.equal(err.code, -32602, `${context}: ${err.message}`);
        const fields = (err.data as { fields?: { field: string }[] } | undefined)?.fields ?? [];
        assert.ok(fields.length > 0, `${context}: no field named in ${err.message}`);
        for (const { field } of fields) {
          const root = field.split(/[.[]/)[0]!;
          assert.ok(root in args || names.includes(root) || root === 'arguments', `${context}: names ${field}`);
        }
        outcomes.refused++;
      }
    }
    assert.ok(outcomes.refused > CALLS / 2, JSON.stringify(outcomes));
    await t.settle();
    assert.equal(JSON.stringify((await t.client(alice.key).call('listChats')).data), stateBefore);
    assert.deepEqual((await t.client(bob.key).call('listChats')).data, []);
    assert.equal((await t.client(alice.key).call('listQueue')).total, 0);
  });

  it('resource URIs of every wrong shape are refused as not found or invalid, on read, subscribe and unsubscribe; the session keeps serving', async () => {
    const own = `parley://instances/${alice.id}`;
    const uris = [
      '', ' ', 'parley://', 'parley://instances/', `${own}`, `${own}/`, `${own}/chats/`, `${own}/chats//messages`, `${own}/chats/%/messages`, `${own}/chats/%E0%A4%A/messages`,
      `${own}/chats/${'9'.repeat(5000)}/messages`, `${own}/chats/x/messages/extra`, `${own}/CHATS`, `${own.toUpperCase()}/chats`, `parley://instances/%2e%2e/chats`,
      `parley://instances/${encodeURIComponent(alice.id + '/chats')}/chats`, `parley://instances/${bob.id}/chats`, 'file:///etc/passwd', 'http://127.0.0.1:1/', '\u0000', '👍',
      `${own}/chats/${encodeURIComponent('../../admin')}/messages`, `${own}/chats?x=1`, `${own}/chats#frag`,
    ];
    const wrong: string[] = [];
    for (const uri of uris) {
      for (const [what, call] of [['read', () => mcp.client.readResource({ uri })], ['subscribe', () => mcp.client.subscribeResource({ uri })]] as const) {
        try {
          await call();
          wrong.push(`${what} ${uri.slice(0, 60)}: accepted`);
        } catch (err) {
          if (!(err instanceof McpError) || ![-32002, -32602].includes(err.code)) wrong.push(`${what} ${uri.slice(0, 60)}: ${String(err).slice(0, 200)}`);
        }
      }
      await mcp.client.unsubscribeResource({ uri }).catch((err) => wrong.push(`unsubscribe ${uri.slice(0, 60)}: ${String(err).slice(0, 200)}`));
    }
    assert.deepEqual(wrong, []);
    assert.ok((await mcp.client.listTools()).tools.length > 0);
  });
});

describe('the MCP endpoint under malformed JSON-RPC', () => {
  it('answers every malformed request with a 4xx or a JSON-RPC error, never a 5xx, and keeps serving the session', async () => {
    const { t, phones: { alice } } = await startWithPhones({ alice: '5511900000711' });
    const mcp = await connectMcp(t, alice.key);
    try {
      const headers = { authorization: `Bearer ${alice.key}`, accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-session-id': mcp.transport.sessionId!, 'mcp-protocol-version': '2025-06-18' };
      const bodies = [
        '', '{', 'null', '[]', '[1,2]', '"text"', '{"jsonrpc":"1.0","id":1,"method":"tools/list"}', '{"jsonrpc":"2.0","id":{},"method":"tools/list"}',
        '{"jsonrpc":"2.0","id":1}', '{"jsonrpc":"2.0","id":1,"method":"no/such"}', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}',
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":{"$gt":""}}}', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"send_text","arguments":"x"}}',
        '{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":5}}', '{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{}}',
        `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"${'x'.repeat(10_000)}"}}`, '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}',
        JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { jsonrpc: '2.0', id: 2, method: 'nope' }]),
      ];
      const wrong: string[] = [];
      for (const body of bodies) {
        const res = await fetch(`${t.url}/mcp`, { method: 'POST', headers, body });
        const text = await res.text();
        if (res.status >= 500) wrong.push(`${body.slice(0, 80)}: ${res.status} ${text.slice(0, 200)}`);
        if (res.status === 200 && !/"error"|"result"/.test(text)) wrong.push(`${body.slice(0, 80)}: 200 without a JSON-RPC answer ${text.slice(0, 200)}`);
      }
      assert.deepEqual(wrong, []);
      assert.ok((await mcp.client.listTools()).tools.some((tool) => tool.name === 'send_text'));
      assert.equal((await t.client(alice.key).call('listQueue')).total, 0);
    } finally {
      await mcp.close();
      await t.stop();
    }
  });
});
