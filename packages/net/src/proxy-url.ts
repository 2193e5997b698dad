import { ValidationError } from '@parley/core';
import type { ProxyGuard } from './proxy-guard.js';
import { httpConnectTunnel, socksTunnel } from './proxy-tunnels.js';
import type { OpenTunnel } from './tunnel-connector.js';

/** An instance's proxy URL, checked and sorted by protocol family. */
export interface ProxyUrl {
  kind: 'http' | 'socks';
  url: URL;
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

/** Opens raw TCP streams through `proxy`: HTTP `CONNECT` or SOCKS, by its kind, to the proxy's address checked by `guard`. */
export function proxyTunnel(proxy: ProxyUrl, guard: ProxyGuard): OpenTunnel {
  return proxy.kind === 'http' ? httpConnectTunnel(proxy.url, guard) : socksTunnel(proxy.url, guard);
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
