import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { deliverText, startWithPhones, type Phone } from '../support/conversation.js';
import { connectMcp, mcpError, toolJson, type McpTestClient } from '../support/mcp-client.js';
import type { TestServer } from '../support/test-server.js';

describe('MCP tools over Streamable HTTP (official SDK client)', () => {
  let t: TestServer;
  let alice: Phone;
  let bob: Phone;
  let mcp: McpTestClient;

  before(async () => {
    ({ t, phones: { alice, bob } } = await startWithPhones({ alice: '5511900000001', bob: '5511900000002' }));
    mcp = await connectMcp(t, alice.key);
  });
  after(async () => {
    await mcp?.close();
    await t?.stop();
  });

  it('lists the tools with input schemas derived from the routes and annotations', async () => {
    const { tools } = await mcp.client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const sendText = byName.get('send_text')!;
    const route = (t.server.openapi.paths as any)['/{key}/message/text'].post.requestBody.content['application/json'].schema;
    for (const [name, schema] of Object.entries(route.properties)) assert.deepEqual(sendText.inputSchema.properties![name], schema, name);
    assert.deepEqual(sendText.inputSchema.required, route.required);
    assert.ok(sendText.inputSchema.properties!.idempotencyKey);
    assert.equal(sendText.annotations?.openWorldHint, true);
    assert.equal(byName.get('remove_group_participants')!.annotations?.destructiveHint, true);
    assert.equal(byName.get('list_chats')!.annotations?.readOnlyHint, true);
    // The path parameter of a chat's messages and the query's paging are arguments; the key is not.
    const messages = byName.get('list_chat_messages')!.inputSchema;
    assert.deepEqual(Object.keys(messages.properties!).sort(), ['jid', 'limit', 'page']);
    assert.equal(messages.properties!.instance, undefined);
  });

  it('every tool is the REST operation docs/mcp.md names, its arguments that operation\'s members with their schemas, its annotations as documented', async () => {
    const doc = readFileSync(new URL('../../../docs/mcp.md', import.meta.url), 'utf8');
    const table = doc.slice(doc.indexOf('| Tool | REST operation | Annotations |')).split('\n').slice(2);
    const openapi = (await t.request('GET', '/openapi.json')).body;
    const { tools } = await mcp.client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const documented = new Set<string>();
    const wrong: string[] = [];
    for (const line of table) {
      if (!line.startsWith('|')) break;
      const [toolCell, restCell, annotationCell] = line.split('|').slice(1, 4).map((c) => c.trim()) as [string, string, string];
      const names = [...toolCell.replace(/\(.*?\)/g, '').matchAll(/`(\w+)`/g)].map((m) => m[1]!);
      const operations = [...restCell.matchAll(/`(GET|POST|PATCH|PUT|DELETE) ([^`?]+)(?:\?(\w+)=\w+)?`/g)].map((m) => ({ method: m[1]!.toLowerCase(), path: m[2]!, fixed: m[3] }));
      names.forEach((name, i) => {
        documented.add(name);
        const tool = byName.get(name);
        if (!tool) return void wrong.push(`${name}: documented, not listed`);
        const op = operations[operations.length === names.length ? i : 0]!;
        const path = op.path.replace('{type}', name.replace(/^(send|reply)_/, ''));
        const operation = openapi.paths[path]?.[op.method];
        if (!operation) return void wrong.push(`${name}: no operation ${op.method} ${path}`);
        const parameters = (operation.parameters ?? []) as { name: string; in: string }[];
        const body = operation.requestBody?.content['application/json'].schema ?? { properties: {} };
        const expected = [
          ...parameters.filter((p) => p.name !== 'key' && p.name !== op.fixed && p.in !== 'header').map((p) => p.name),
          ...Object.keys(body.properties ?? {}), ...(parameters.some((p) => p.name === 'Idempotency-Key') ? ['idempotencyKey'] : []),
        ].sort();
        const got = Object.keys(tool.inputSchema.properties ?? {}).sort();
        if (JSON.stringify(got) !== JSON.stringify(expected)) wrong.push(`${name}: arguments ${got.join(',')}, ${op.method} ${path} takes ${expected.join(',')}`);
        for (const [member, schema] of Object.entries(body.properties ?? {})) {
          if (JSON.stringify(tool.inputSchema.properties![member]) !== JSON.stringify(schema)) wrong.push(`${name}: ${member}'s schema is not the route's`);
        }
        const a = tool.annotations ?? {};
        const says = (word: string) => annotationCell.includes(word);
        if ((a.readOnlyHint === true) !== says('read-only')) wrong.push(`${name}: readOnlyHint ${a.readOnlyHint}, documented ${annotationCell}`);
        if ((a.destructiveHint === true) !== says('destructive')) wrong.push(`${name}: destructiveHint ${a.destructiveHint}, documented ${annotationCell}`);
        if ((a.openWorldHint === true) !== says('open world')) wrong.push(`${name}: openWorldHint ${a.openWorldHint}, documented ${annotationCell}`);
        if (says('idempotent') && a.idempotentHint !== true) wrong.push(`${name}: documented idempotent, idempotentHint ${a.idempotentHint}`);
      });
    }
    assert.deepEqual(wrong, []);
    assert.deepEqual([...documented].sort(), [...byName.keys()].sort(), 'every listed tool is documented');
  });

  it('is documented in /openapi.json as what it is: the MCP transport, with either credential', async () => {
    const doc = (await t.request('GET', '/openapi.json')).body;
    for (const method of ['post', 'get', 'delete']) {
      const op = doc.paths['/mcp'][method];
      assert.deepEqual(op.security, [{ adminToken: [] }, { instanceKey: [] }], method);
      assert.match(op.description, /Streamable HTTP transport of the Model Context Protocol/);
      assert.ok(op.responses['429'] && op.responses['401'], method);
    }
    assert.equal(doc.components.securitySchemes.instanceKey.scheme, 'bearer');
  });

  it('sends a text through the queue, idempotently', async () => {
    const args = { to: bob.number, text: 'hello from an agent', idempotencyKey: 'mcp-test-1' };
    const first = toolJson(await mcp.client.callTool({ name: 'send_text', arguments: args }));
    const again = toolJson(await mcp.client.callTool({ name: 'send_text', arguments: args }));
    assert.equal(again.data.key.id, first.data.key.id);
    await t.waitFor(async () => {
      const res = await t.client(bob.key).call('listChatMessages', { params: { jid: alice.number }, query: { limit: 100 } });
      return res.data.filter((m) => m.key.id === first.data.key.id).length === 1;
    }, 5000, 'the message to reach bob once');
  });

  it('refuses bad arguments with an MCP error naming the field, and sends nothing', async () => {
    const before = (await t.client(alice.key).call('listChatMessages', { params: { jid: bob.number }, query: { limit: 100 } })).total;
    const missing = await mcpError(mcp.client.callTool({ name: 'send_text', arguments: { to: bob.number } }));
    assert.equal(missing.code, ErrorCode.InvalidParams);
    assert.match(missing.message, /\btext is required/);
    assert.deepEqual((missing.data as any).fields.map((f: any) => f.field), ['text']);
    const extra = await mcpError(mcp.client.callTool({ name: 'send_text', arguments: { to: bob.number, text: 'x', colour: 'red' } }));
    assert.match(extra.message, /\bcolour is not allowed/);
    const paging = await mcpError(mcp.client.callTool({ name: 'list_chat_messages', arguments: { jid: bob.number, limit: 1000 } }));
    assert.match(paging.message, /\blimit must be <= 100/);
    // Checked as the Idempotency-Key header is, before it is sent as one (a control character cannot be).
    const key = await mcpError(mcp.client.callTool({ name: 'send_text', arguments: { to: bob.number, text: 'x', idempotencyKey: 'a\u0000b' } }));
    assert.equal(key.code, ErrorCode.InvalidParams);
    assert.match(key.message, /^MCP error -32602: idempotencyKey must be visible ASCII characters/);
    const queryless = await mcpError(mcp.client.callTool({ name: 'list_chats', arguments: { page: 2 } }));
    assert.match(queryless.message, /\bpage is not allowed/);
    await t.settle();
    assert.equal((await t.client(alice.key).call('listChatMessages', { params: { jid: bob.number }, query: { limit: 100 } })).total, before);
  });

  it('reads chats and a chat\'s messages, marks it read, replies and reacts', async () => {
    const id = await deliverText(t, bob, alice, 'question for the agent');
    const chats = toolJson(await mcp.client.callTool({ name: 'list_chats', arguments: {} }));
    assert.ok(chats.data.some((c: any) => c.id === `${bob.number}@s.whatsapp.net`));
    const page = toolJson(await mcp.client.callTool({ name: 'list_chat_messages', arguments: { jid: bob.number, limit: 1 } }));
    assert.equal(page.limit, 1);
    assert.equal(page.data[0].key.id, id);
    const read = toolJson(await mcp.client.callTool({ name: 'mark_chat_read', arguments: { jid: bob.number, value: true } }));
    assert.equal(read.data.unreadCount, 0);
    const reply = toolJson(await mcp.client.callTool({ name: 'reply_text', arguments: { messageId: id, to: bob.number, text: 'answer' } }));
    assert.equal(reply.data.key.fromMe, true);
    const reaction = toolJson(await mcp.client.callTool({ name: 'send_reaction', arguments: { msgId: id, text: '👍' } }));
    assert.ok(reaction.data.key.id);
  });
});
