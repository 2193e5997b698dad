import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { deliverText, jidOf, phone, startWithPhones, type Phone } from '../support/conversation.js';
import { connectMcp, mcpError, toolJson, type McpTestClient } from '../support/mcp-client.js';
import type { TestServer } from '../support/test-server.js';

/** MCP's "Resource not found". */
const RESOURCE_NOT_FOUND = -32002;

describe('MCP resources, subscriptions and who reaches what', () => {
  let t: TestServer;
  let alice: Phone;
  let bob: Phone;
  let mcp: McpTestClient;
  const chatsOf = (p: Phone) => `parley://instances/${p.id}/chats`;
  /** The JSON of a resource's one text content. */
  const read = async (client: McpTestClient, uri: string) => {
    const [content] = (await client.client.readResource({ uri })).contents;
    assert.ok(content && 'text' in content, 'a text content');
    return JSON.parse(content.text);
  };
  const messagesOf = (p: Phone, peer: Phone) => `parley://instances/${p.id}/chats/${encodeURIComponent(jidOf(peer.number))}/messages`;

  before(async () => {
    ({ t, phones: { alice, bob } } = await startWithPhones({ alice: '5511900000501', bob: '5511900000502' }));
    mcp = await connectMcp(t, alice.key);
  });
  after(async () => {
    await mcp?.close();
    await t?.stop();
  });

  it('lists and reads the chats and a chat\'s messages', async () => {
    const id = await deliverText(t, bob, alice, 'first');
    const { resources } = await mcp.client.listResources();
    assert.deepEqual(resources.map((r) => r.uri), [chatsOf(alice), messagesOf(alice, bob)]);
    const chats = await read(mcp, chatsOf(alice));
    assert.equal(chats[0].id, jidOf(bob.number));
    const messages = await read(mcp, messagesOf(alice, bob));
    assert.equal(messages[0].key.id, id);
    const { resourceTemplates } = await mcp.client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((r) => r.uriTemplate), ['parley://instances/{instance}/chats', 'parley://instances/{instance}/chats/{chat}/messages']);
  });

  it('a message arriving notifies the subscribed resources, and no longer once unsubscribed', async () => {
    await mcp.client.subscribeResource({ uri: messagesOf(alice, bob) });
    await mcp.client.subscribeResource({ uri: chatsOf(alice) });
    mcp.updated.length = 0;
    await deliverText(t, bob, alice, 'are you there?');
    await t.waitFor(() => mcp.updated.includes(messagesOf(alice, bob)) && mcp.updated.includes(chatsOf(alice)), 5000, 'both updates');
    await mcp.client.unsubscribeResource({ uri: chatsOf(alice) });
    mcp.updated.length = 0;
    await deliverText(t, bob, alice, 'hello?');
    await t.waitFor(() => mcp.updated.includes(messagesOf(alice, bob)), 5000, 'the messages update');
    // Both would have been told in the same turn of the event's delivery.
    assert.equal(mcp.updated.includes(chatsOf(alice)), false);
  });

  it('a message the agent sends and its read status notify the messages resource, readable once told (fed after the event log)', async () => {
    await mcp.client.subscribeResource({ uri: messagesOf(alice, bob) });
    mcp.updated.length = 0;
    const sent = toolJson(await mcp.client.callTool({ name: 'send_text', arguments: { to: bob.number, text: 'told and readable' } })).data.key.id as string;
    await t.waitFor(() => mcp.updated.includes(messagesOf(alice, bob)), 5000, 'the update of the send');
    // Told once the event is in the log: the resource read at once shows the message.
    assert.equal((await read(mcp, messagesOf(alice, bob)))[0].key.id, sent);
    await t.waitFor(async () => (await t.client(bob.key).call('getMessage', { params: { messageId: sent } })).status === 200, 5000, 'the message at bob');
    mcp.updated.length = 0;
    assert.equal((await t.client(bob.key).call('updateChat', { params: { jid: alice.number }, query: { action: 'markRead', value: true } })).status, 200);
    await t.waitFor(() => t.events.find((e) => e.type === 'message.status' && e.instance === alice.id && e.messageId === sent && e.status === 'read'), 5000, 'the read status');
    await t.waitFor(() => mcp.updated.includes(messagesOf(alice, bob)), 5000, 'the update of the read status');
    assert.equal((await read(mcp, messagesOf(alice, bob)))[0].status, 'READ');
    await mcp.client.unsubscribeResource({ uri: messagesOf(alice, bob) });
  });

  it('a chat deleted notifies the chat list, which reads without it', async () => {
    const dora = await phone(t, 'dora', '5511900000504');
    await deliverText(t, dora, alice, 'a chat to delete');
    await mcp.client.subscribeResource({ uri: chatsOf(alice) });
    mcp.updated.length = 0;
    assert.equal((await t.client(alice.key).call('deleteChat', { params: { jid: dora.number } })).status, 200);
    await t.waitFor(() => mcp.updated.includes(chatsOf(alice)), 5000, 'the chat list update');
    assert.equal((await read(mcp, chatsOf(alice))).some((c: { id: string }) => c.id === jidOf(dora.number)), false);
    await mcp.client.unsubscribeResource({ uri: chatsOf(alice) });
  });

  it('a chat named by a phone number reads, but is subscribed to only by its id (events name chats by id: it would never be told)', async () => {
    const byNumber = `parley://instances/${alice.id}/chats/${bob.number}/messages`;
    assert.ok((await read(mcp, byNumber)).length > 0, 'read as the REST path reads it');
    const refused = await mcpError(mcp.client.subscribeResource({ uri: byNumber }));
    assert.equal(refused.code, RESOURCE_NOT_FOUND);
    assert.match(refused.message, new RegExp(`the instance has no chat of id ${bob.number}; subscribe by a chat id as the chats resource lists it`));
    const notYet = await mcpError(mcp.client.subscribeResource({ uri: `parley://instances/${alice.id}/chats/${encodeURIComponent(jidOf('5511900000599'))}/messages` }));
    assert.equal(notYet.code, RESOURCE_NOT_FOUND);
    // By its id it is told.
    await mcp.client.subscribeResource({ uri: messagesOf(alice, bob) });
    mcp.updated.length = 0;
    await deliverText(t, bob, alice, 'told by id');
    await t.waitFor(() => mcp.updated.includes(messagesOf(alice, bob)), 5000, 'the update');
    await mcp.client.unsubscribeResource({ uri: messagesOf(alice, bob) });
  });

  it('an instance key reaches no other instance: resources, subscriptions and tools are refused', async () => {
    for (const uri of [chatsOf(bob), messagesOf(bob, alice), 'parley://instances/ins_nothere/chats', 'https://example.com/x']) {
      assert.equal((await mcpError(mcp.client.readResource({ uri }))).code, RESOURCE_NOT_FOUND, uri);
      assert.equal((await mcpError(mcp.client.subscribeResource({ uri }))).code, RESOURCE_NOT_FOUND, uri);
    }
    const refused = await mcpError(mcp.client.callTool({ name: 'list_chats', arguments: { instance: bob.id } }));
    assert.equal(refused.code, ErrorCode.InvalidParams);
    assert.match(refused.message, /\binstance is not allowed/);
    const send = await mcpError(mcp.client.callTool({ name: 'send_text', arguments: { instance: bob.id, to: alice.number, text: 'x' } }));
    assert.match(send.message, /\binstance is not allowed/);
    // Nor through what another instance's data is named by: a message only bob and carol have is not alice's to quote or react to.
    const carol = await phone(t, 'carol', '5511900000503');
    const theirs = await deliverText(t, bob, carol, 'between bob and carol');
    for (const [name, args] of [['reply_text', { messageId: theirs, to: bob.number, text: 'x' }], ['send_reaction', { msgId: theirs, text: '👍' }]] as const) {
      const result = await mcp.client.callTool({ name, arguments: args });
      assert.equal(result.isError, true, name);
      assert.equal(JSON.parse((result.content as { text: string }[])[0]!.text).error.code, 'message_not_found', name);
    }
    assert.deepEqual(toolJson(await mcp.client.callTool({ name: 'list_chat_messages', arguments: { jid: carol.number } })).data, []);
    assert.equal((await t.client(carol.key).call('listChatMessages', { params: { jid: bob.number } })).total, 1, 'carol got nothing more');
  });

  it('the admin token\'s tools take the instance, and its resources reach every instance', async () => {
    const admin = await connectMcp(t, t.adminToken);
    try {
      const tool = (await admin.client.listTools()).tools.find((x) => x.name === 'send_text')!;
      assert.equal(tool.inputSchema.required![0], 'instance');
      const missing = await mcpError(admin.client.callTool({ name: 'send_text', arguments: { to: alice.number, text: 'x' } }));
      assert.deepEqual((missing.data as { fields: { field: string }[] }).fields.map((f) => f.field), ['instance']);
      const unknown = await mcpError(admin.client.callTool({ name: 'list_chats', arguments: { instance: 'ins_nothere' } }));
      assert.match(unknown.message, /^MCP error -32602: instance names no instance/);
      const sent = toolJson(await admin.client.callTool({ name: 'send_text', arguments: { instance: bob.id, to: alice.number, text: 'from the admin' } }));
      assert.equal(sent.data.key.fromMe, true);
      const chats = await read(admin, chatsOf(bob));
      assert.equal(chats[0].id, jidOf(alice.number));
      assert.deepEqual((await admin.client.listResources()).resources, []);
      // And its subscriptions are told of any instance's events.
      await admin.client.subscribeResource({ uri: messagesOf(bob, alice) });
      await deliverText(t, alice, bob, 'told to the admin');
      await t.waitFor(() => admin.updated.includes(messagesOf(bob, alice)), 5000, 'the admin session told of bob\'s message');
    } finally {
      await admin.close();
    }
  });

  it('refuses requests without a valid credential, and a session to anyone but who opened it', async () => {
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    const headers = { accept: 'application/json, text/event-stream' };
    const none = await t.request('POST', '/mcp', initialize, headers);
    assert.equal(none.status, 401);
    assert.equal(none.body.error.code, 'unauthorized');
    const wrong = await t.request('POST', '/mcp', initialize, { ...headers, authorization: 'Bearer not-a-key-of-anyone-0123456789ab' });
    assert.equal(wrong.status, 401);
    const session = mcp.transport.sessionId!;
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    const foreign = await t.request('POST', '/mcp', list, { ...headers, authorization: `Bearer ${bob.key}`, 'mcp-session-id': session });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error.code, 'mcp_session_not_found');
    const sessionless = await t.request('POST', '/mcp', list, { ...headers, authorization: `Bearer ${alice.key}` });
    assert.equal(sessionless.status, 400);
    const head = await t.request('HEAD', '/mcp', undefined, { ...headers, authorization: `Bearer ${alice.key}`, 'mcp-session-id': session });
    assert.equal(head.status, 405);
  });
});
