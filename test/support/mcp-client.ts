import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, ResourceUpdatedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import assert from 'node:assert/strict';
import type { TestServer } from './test-server.js';

/** An MCP client of the official SDK connected to a test server's `/mcp`, and the resource updates it was told of. */
export interface McpTestClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** URIs of `notifications/resources/updated`, in arrival order. */
  updated: string[];
  close(): Promise<void>;
}

/**
 * Connects the SDK's client over Streamable HTTP with `Authorization: Bearer <credential>` (an instance
 * key or the admin token) to `/mcp` of a server (a test server, a cluster node).
 */
export async function connectMcp(t: Pick<TestServer, 'url'>, credential: string): Promise<McpTestClient> {
  const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${credential}` } } });
  const client = new Client({ name: 'parley-e2e', version: '1.0.0' });
  const updated: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updated.push(n.params.uri);
  });
  await client.connect(transport);
  return {
    client, transport, updated,
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}

/** The JSON a tool answered (its text content), asserting the call succeeded. */
export function toolJson<T = any>(result: CallToolResult | unknown): T {
  const r = result as CallToolResult;
  assert.notEqual(r.isError, true, `tool failed: ${JSON.stringify(r.content)}`);
  const text = r.content.find((c) => c.type === 'text');
  assert.ok(text && text.type === 'text', 'a text content');
  return JSON.parse(text.text) as T;
}

/** The MCP error a call rejected with (asserting it rejected with one). */
export async function mcpError(call: Promise<unknown>): Promise<McpError> {
  try {
    await call;
  } catch (err) {
    assert.ok(err instanceof McpError, `an McpError, got ${String(err)}`);
    return err;
  }
  assert.fail('the call should have been refused');
}
