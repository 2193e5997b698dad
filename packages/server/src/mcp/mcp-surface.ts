import type { ServerContext } from '../app/server-context.js';
import type { Principal } from '../app/credential.js';
import type { EventFanIn } from '../cluster/event-fan-in.js';
import { nodeSessionId } from '../cluster/session-affinity.js';
import { defineRoute, StreamReply, type RouteDefinition } from '../http/route.js';
import { McpSessions } from './mcp-sessions.js';
import { RouteCaller } from './route-caller.js';
import { TOOLS } from './tool-catalog.js';
import { deriveTools, type DerivedTool } from './tool-schema.js';

const tag = 'MCP';

const TRANSPORT = 'The Streamable HTTP transport of the Model Context Protocol (https://modelcontextprotocol.io), served by the official '
  + 'TypeScript SDK; see docs/mcp.md. Authenticate every request with `Authorization: Bearer` and an instance key (the tools act on '
  + 'that instance) or the admin token (each tool takes an `instance`). A session starts with an `initialize` request, whose answer '
  + 'carries the `Mcp-Session-Id` header to send with every later request; it is closed by DELETE or after `mcp.idleSeconds` unused.';

/**
 * The MCP server (issue 28): a protocol surface over the REST API. Its tools are REST operations
 * whose input schemas are derived from the routes' own schemas, called over HTTP like any client
 * (see {@link RouteCaller}); its resources read chats and messages through the same operations, and
 * the event bus (past the event log) tells subscribed sessions what changed. Nothing here reaches a
 * channel, storage or the queue but through the REST API.
 */
export class McpSurface {
  private derived?: Map<string, DerivedTool>;
  readonly sessions: McpSessions;

  /**
   * `routes` answers the server's final routes (bounds applied); `baseUrl` the listening URL; `fanIn`,
   * on a cluster node, the other nodes' events (the sessions hear every node's, docs/mcp.md).
   */
  constructor(private readonly ctx: ServerContext, routes: () => RouteDefinition[], baseUrl: () => string, fanIn?: Pick<EventFanIn, 'add' | 'watching'>) {
    const byId = (id: string) => routes().find((r) => r.operationId === id)!;
    this.sessions = new McpSessions({
      config: ctx.config.mcp, clock: ctx.clock, logger: ctx.logger.child({ component: 'mcp' }), version: ctx.version,
      caller: new RouteCaller(baseUrl),
      tools: () => (this.derived ??= deriveTools(TOOLS, routes())),
      resourceRoutes: () => ({ listChats: byId('listChats'), listChatMessages: byId('listChatMessages') }),
      keyOf: async (id) => (await ctx.storage.instances.get(id))?.key,
      ...(fanIn ? { clusterWatch: () => fanIn.watching() } : {}),
      // On a cluster node a session's id names the node, which any node forwards the session's requests to.
      ...(ctx.cluster ? { newSessionId: () => nodeSessionId(ctx.cluster!.id) } : {}),
    });
    ctx.bus.watch((event) => this.sessions.notify(event));
    fanIn?.add(this.sessions);
  }

  /** `POST`, `GET` and `DELETE /mcp`, as routes: authenticated, limited and documented like the REST API. */
  routes(): RouteDefinition[] {
    const serve = (method: 'post' | 'get' | 'delete', operationId: string, summary: string, description: string): RouteDefinition =>
      defineRoute<unknown, unknown, unknown, Principal>({
        method, path: '/mcp', operationId, tag, auth: 'credential', summary, description: `${description}\n\n${TRANSPORT}`,
        response: { text: method === 'delete' ? 'application/json' : 'text/event-stream' },
        errors: [202, 404, 405, 406, 409, 415, 429],
        handler: async ({ req, scope }) => {
          const serveRequest = await this.sessions.accept(req, scope);
          return new StreamReply((_req, res) => serveRequest(res));
        },
      });
    return [
      serve('post', 'mcpPost', 'MCP: send JSON-RPC messages (initialize, tools/call, resources/read, …)',
        'Answers a request as JSON or as an event stream carrying its answer (`Accept: application/json, text/event-stream`); notifications and responses alone are answered 202.'),
      serve('get', 'mcpStream', 'MCP: open the session\'s event stream (resource updates)',
        'Server-Sent Events of the session: `notifications/resources/updated` for subscribed resources. One stream per session (a second answers 409).'),
      serve('delete', 'mcpDelete', 'MCP: close the session', 'Ends the session named by `Mcp-Session-Id`.'),
    ];
  }

  /** Ends every session (server shutdown): their event streams would keep connections open. */
  close(): Promise<void> {
    return this.sessions.close();
  }
}
