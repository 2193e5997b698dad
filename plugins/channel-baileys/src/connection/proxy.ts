import type { ClientRequest } from 'node:http';
import type { Agent } from 'node:https';
import type { Socket } from 'node:net';
import { checkProxy, type ProxyGuard, type ProxyUrl } from '@parley/net';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { SocksProxyAgent } from 'socks-proxy-agent';

/** What the agents' `connect` is called with (agent-base's `AgentConnectOpts`). */
type AgentConnectOpts = Parameters<HttpsProxyAgent<string>['connect']>[1];

/** Agents handed to Baileys: `agent` for the WebSocket, `fetchAgent` for media uploads. */
export interface ProxyAgents {
  agent: Agent;
  fetchAgent: Agent;
}

/**
 * `https-proxy-agent` that dials the proxy's address checked at each connection, not the name (which
 * could resolve to a private address by then): the connection goes through a one-off agent for the
 * checked URL, which keeps the proxy's host name for the TLS certificate check of an `https` proxy.
 */
class CheckedHttpsProxyAgent extends HttpsProxyAgent<string> {
  constructor(private readonly source: URL, private readonly guard: ProxyGuard) {
    super(source.href);
  }

  override async connect(req: ClientRequest, opts: AgentConnectOpts): Promise<Socket> {
    const checked = await checkProxy(this.source, this.guard);
    return new HttpsProxyAgent(checked.url, checked.servername ? { servername: checked.servername } : {}).connect(req, opts);
  }
}

/** `socks-proxy-agent` that dials the proxy's address checked at each connection, as {@link CheckedHttpsProxyAgent}. */
class CheckedSocksProxyAgent extends SocksProxyAgent {
  constructor(private readonly source: URL, private readonly guard: ProxyGuard) {
    super(source);
  }

  override async connect(req: ClientRequest, opts: AgentConnectOpts): Promise<Socket> {
    return new SocksProxyAgent((await checkProxy(this.source, this.guard)).url).connect(req, opts);
  }
}

/**
 * The WebSocket and upload agents of a proxy (Baileys takes `https.Agent`s for those, not undici
 * dispatchers). Each connection checks the proxy's address with `guard` when it is made.
 */
export function proxyAgents(proxy: ProxyUrl, guard: ProxyGuard): ProxyAgents {
  const make = () => (proxy.kind === 'http' ? new CheckedHttpsProxyAgent(proxy.url, guard) : new CheckedSocksProxyAgent(proxy.url, guard));
  return { agent: make(), fetchAgent: make() };
}
