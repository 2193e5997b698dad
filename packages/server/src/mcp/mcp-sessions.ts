import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema, isInitializeRequest, ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, ListToolsRequestSchema,
  ReadResourceRequestSchema, SubscribeRequestSchema, UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { ParleyError, ValidationError, type ChannelEvent, type Clock, type Logger } from '@parley/core';
import type { Principal } from '../app/credential.js';
import type { EventAudience } from '../cluster/event-fan-in.js';
import { MCP_SESSION_HEADER as SESSION_HEADER } from '../cluster/session-affinity.js';
import type { McpConfig } from '../config/config.js';
import { changedBy, SessionResources, type ResourceRoutes } from './mcp-resources.js';
import { SessionTools, type KeyOfInstance } from './mcp-tools.js';
import type { RouteCaller } from './route-caller.js';
import type { DerivedTool } from './tool-schema.js';

/** How often idle sessions are looked for besides each new session's start. */
const SWEEP_MS = 30_000;

/** One MCP session: its SDK server and transport, who opened it, and when it was last used. */
interface Session {
  id: string;
  principal: Principal;
  server: Server;
  transport: StreamableHTTPServerTransport;
  resources: SessionResources;
  lastSeen: number;
  /** Open requests and GET streams: a session in use is never idle. */
  open: number;
}

/** What {@link McpSessions} needs. */
export interface McpSessionsOptions {
  config: McpConfig;
  clock: Clock;
  logger: Logger;
  version: string;
  caller: RouteCaller;
  tools: () => Map<string, DerivedTool>;
  resourceRoutes: () => ResourceRoutes;
  keyOf: KeyOfInstance;
  /**
   * On a cluster node: resolves once every other live node publishes its events to this one (the
   * cluster's event fan-in, to which these sessions are an {@link EventAudience}); a subscription
   * waits for it, so it hears of its instance's events whichever node runs the instance.
   */
  clusterWatch?: () => Promise<void>;
  /** A new session's id (a cluster node's names the node, see cluster/session-affinity.ts); a random UUID by default. */
  newSessionId?: () => string;
}

function samePrincipal(a: Principal, b: Principal): boolean {
  return a.kind === 'admin' ? b.kind === 'admin' : b.kind === 'instance' && a.id === b.id;
}

/**
 * The MCP sessions of this server (stateful Streamable HTTP: resource subscriptions need a session
 * to notify). A session is opened by an authenticated `initialize` only, so nobody without a key
 * or the token holds one; sessions are bounded in number (`mcp.maxSessions`, and per instance
 * `mcp.maxSessionsPerInstance`) and closed after `mcp.idleSeconds` without a request or an open
 * stream. A session answers only the principal that opened it (anyone else: 404, as for an
 * unknown session). On a cluster node the sessions hear, besides this node's events, those of every
 * other node (they are an {@link EventAudience} of the event fan-in) while any has a subscription.
 */
export class McpSessions implements EventAudience {
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly options: McpSessionsOptions) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
  }

  /** Open sessions (metrics, tests). */
  count(): number {
    return this.sessions.size;
  }

  /** Whether some session holds a subscription: the other nodes' events are wanted. */
  wanted(): boolean {
    for (const session of this.sessions.values()) if (session.resources.subscribing()) return true;
    return false;
  }

  /** An event of another node (cluster fan-in): notified like this node's own. */
  offer(event: ChannelEvent): void {
    this.notify(event);
  }

  /**
   * Events of other nodes may have been missed (the node's link to the store was lost): every
   * subscribed resource is told it was updated, so the agent reads it again and misses nothing.
   */
  missed(): void {
    for (const session of this.sessions.values()) this.send(session, session.resources.subscriptions());
  }

  /** Tells each subscribed session of the resources an event changed (the bus calls it once the event log has the event). */
  notify(event: ChannelEvent): void {
    // Every handled event comes here: without a session there is nobody to tell, and no URI to build.
    if (this.sessions.size === 0) return;
    const uris = changedBy(event);
    if (uris.length === 0) return;
    for (const session of this.sessions.values()) {
      if (session.principal.kind === 'instance' && session.principal.id !== event.instance) continue;
      this.send(session, session.resources.watched(uris));
    }
  }

  private send(session: Session, uris: readonly string[]): void {
    for (const uri of uris) {
      session.server.sendResourceUpdated({ uri }).catch((err: unknown) => this.options.logger.debug({ err }, 'resource update not sent'));
    }
  }

  /**
   * Finds (or, for an `initialize`, opens) the session of an authenticated request to `/mcp`; throws
   * the refusal otherwise (404 unknown session, 400 no session, 429 too many). Answers what serves
   * the request once the router hands over the response.
   */
  async accept(req: Request, principal: Principal): Promise<(res: Response) => void> {
    const header = req.headers[SESSION_HEADER];
    const id = typeof header === 'string' ? header : undefined;
    let session: Session;
    let opened = false;
    if (id !== undefined) {
      const found = this.sessions.get(id);
      if (!found || !samePrincipal(found.principal, principal)) throw new ParleyError(404, 'mcp_session_not_found', 'no such MCP session (closed, expired or never opened): initialize a new one');
      session = found;
    } else if (req.method === 'POST' && isInitializeRequest(req.body)) {
      session = await this.open(principal);
      opened = true;
    } else {
      throw new ValidationError(`${SESSION_HEADER} header required: a session starts with an initialize request`);
    }
    return (res) => {
      session.open++;
      session.lastSeen = this.options.clock.now();
      res.once('close', () => {
        session.open--;
        session.lastSeen = this.options.clock.now();
        // An initialize the transport refused (wrong Accept, say) opened nothing: its slot is freed at once.
        if (opened && session.transport.sessionId === undefined) void this.end(session);
      });
      session.transport.handleRequest(req, res, req.body).catch((err: unknown) => {
        this.options.logger.error({ err }, 'MCP request failed');
        if (!res.headersSent) res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'internal error' }, id: null });
        else res.end();
      });
    };
  }

  /** Closes every session (server shutdown). */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.values()].map((s) => this.end(s)));
  }

  private async open(principal: Principal): Promise<Session> {
    this.sweep();
    const { config } = this.options;
    const ofInstance = principal.kind === 'instance' ? [...this.sessions.values()].filter((s) => samePrincipal(s.principal, principal)).length : 0;
    if (this.sessions.size >= config.maxSessions || ofInstance >= config.maxSessionsPerInstance) {
      const which = this.sessions.size >= config.maxSessions ? `the server's ${config.maxSessions}` : `this instance's ${config.maxSessionsPerInstance}`;
      throw new ParleyError(429, 'too_many_mcp_sessions', `${which} MCP sessions are open: close one (DELETE /mcp) or wait until one is idle for ${config.idleSeconds} s`, { retryAfterSeconds: config.idleSeconds });
    }
    const id = this.options.newSessionId?.() ?? randomUUID();
    const server = new Server({ name: 'parley', version: this.options.version }, {
      capabilities: { tools: {}, resources: { subscribe: true } },
      instructions: 'Parley messaging gateway: tools send and read messages of '
        + (principal.kind === 'admin' ? 'the instance named by each call\'s `instance` argument.' : 'this instance.')
        + ' Sends are queued and paced by the instance\'s policy. Subscribe to a chat\'s messages resource to hear of new messages.',
    });
    const { caller, keyOf } = this.options;
    const tools = new SessionTools(this.options.tools, principal, caller, keyOf);
    const resources = new SessionResources(this.options.resourceRoutes, principal, caller, keyOf);
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.list() }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => tools.call(request.params.name, request.params.arguments));
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: await resources.list() }));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: resources.templates() }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => resources.read(request.params.uri));
    server.setRequestHandler(SubscribeRequestSchema, async (request) => {
      await resources.subscribe(request.params.uri);
      // Answered once the other nodes publish: the instance's events reach this session wherever it runs.
      await this.options.clusterWatch?.().catch((err: unknown) => this.options.logger.warn({ err }, 'other nodes could not be asked for their events; this subscription hears this node\'s'));
      return {};
    });
    server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
      await resources.unsubscribe(request.params.uri);
      return {};
    });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessionclosed: () => {
        this.sessions.delete(id);
      },
    });
    transport.onclose = () => this.sessions.delete(id);
    await server.connect(transport);
    const session: Session = { id, principal, server, transport, resources, lastSeen: this.options.clock.now(), open: 0 };
    this.sessions.set(id, session);
    return session;
  }

  /** Closes sessions idle for longer than `mcp.idleSeconds`. */
  private sweep(): void {
    const before = this.options.clock.now() - this.options.config.idleSeconds * 1000;
    for (const session of this.sessions.values()) {
      if (session.open === 0 && session.lastSeen < before) void this.end(session);
    }
  }

  private async end(session: Session): Promise<void> {
    this.sessions.delete(session.id);
    await session.server.close().catch((err: unknown) => this.options.logger.debug({ err }, 'MCP session close failed'));
  }
}
