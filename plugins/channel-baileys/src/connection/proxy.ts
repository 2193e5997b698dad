import type { Agent } from 'node:https';
import type { ProxyUrl } from '@parley/net';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { SocksProxyAgent } from 'socks-proxy-agent';

/** Agents handed to Baileys: `agent` for the WebSocket, `fetchAgent` for media uploads. */
export interface ProxyAgents {
  agent: Agent;
  fetchAgent: Agent;
}

/** The WebSocket and upload agents of a proxy (Baileys takes `https.Agent`s for those, not undici dispatchers). */
export function proxyAgents(proxy: ProxyUrl): ProxyAgents {
  if (proxy.kind === 'http') return { agent: new HttpsProxyAgent(proxy.url), fetchAgent: new HttpsProxyAgent(proxy.url) };
  return { agent: new SocksProxyAgent(proxy.url), fetchAgent: new SocksProxyAgent(proxy.url) };
}
