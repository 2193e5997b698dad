import type { Agent } from 'node:https';
import { ValidationError } from '@parley/core';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { SocksProxyAgent } from 'socks-proxy-agent';

/** An instance's proxy URL, checked and sorted by protocol family. */
export interface ProxyUrl {
  kind: 'http' | 'socks';
  url: URL;
}

/** Agents handed to Baileys: `agent` for the WebSocket, `fetchAgent` for media uploads. */
export interface ProxyAgents {
  agent: Agent;
  fetchAgent: Agent;
}

const HTTP = new Set(['http:', 'https:']);
const SOCKS = new Set(['socks:', 'socks4:', 'socks4a:', 'socks5:', 'socks5h:']);

/**
 * Parses an instance's proxy URL (`http`, `https` or `socks*`, credentials in the user-info part).
 * Answers undefined when no proxy is set; throws ValidationError for anything else.
 */
export function parseProxy(proxy: string | undefined): ProxyUrl | undefined {
  if (!proxy || proxy.trim() === '') return undefined;
  let url: URL;
  try {
    url = new URL(proxy.trim());
  } catch {
    throw new ValidationError('proxy must be an absolute URL such as http://user:pass@host:port or socks5://host:port');
  }
  if (!url.hostname) throw new ValidationError('proxy has no host');
  if (HTTP.has(url.protocol)) return { kind: 'http', url };
  if (SOCKS.has(url.protocol)) return { kind: 'socks', url };
  throw new ValidationError(`proxy scheme ${url.protocol.slice(0, -1)} is not supported (use http, https or socks)`);
}

/** The WebSocket and upload agents of a proxy. */
export function proxyAgents(proxy: ProxyUrl): ProxyAgents {
  if (proxy.kind === 'http') return { agent: new HttpsProxyAgent(proxy.url), fetchAgent: new HttpsProxyAgent(proxy.url) };
  return { agent: new SocksProxyAgent(proxy.url), fetchAgent: new SocksProxyAgent(proxy.url) };
}

/** The proxy URL without its password, for logs. */
export function redactProxy(proxy: string): string {
  try {
    const url = new URL(proxy);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return '(unparseable proxy URL)';
  }
}
