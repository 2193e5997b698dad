import { randomUUID } from 'node:crypto';
import type { Request } from 'express';

/** Where the MCP server is served (docs/mcp.md). */
export const MCP_PATH = '/mcp';
/** The MCP session id header (Streamable HTTP). */
export const MCP_SESSION_HEADER = 'mcp-session-id';

/**
 * A new MCP session id of a cluster node: the node's id, a dot, a random UUID. Any node reading it
 * knows which node holds the session (sessions live in that node's memory) and forwards the
 * session's requests there, so a load balancer needs no affinity (docs/mcp.md, *In a cluster*).
 */
export function nodeSessionId(nodeId: string): string {
  return `${nodeId}.${randomUUID()}`;
}

/**
 * The node holding the MCP session a request to `/mcp` names, or undefined (no session id, or one
 * without a node). Node ids may contain dots; the UUID after the last one has none.
 */
export function sessionHolder(req: Request): string | undefined {
  if (req.path !== MCP_PATH) return undefined;
  const id = req.headers[MCP_SESSION_HEADER];
  if (typeof id !== 'string') return undefined;
  const dot = id.lastIndexOf('.');
  return dot > 0 ? id.slice(0, dot) : undefined;
}

/** An MCP session's event stream (`GET /mcp`): open as long as the session listens, quiet for as long as nothing happens. */
export function isSessionStream(req: Request): boolean {
  return req.method === 'GET' && req.path === MCP_PATH;
}
