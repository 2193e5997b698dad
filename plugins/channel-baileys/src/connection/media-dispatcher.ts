import type { ConnectionOptions } from 'node:tls';
import { proxyTunnel, tunnelConnector, type ProxyGuard, type ProxyUrl } from '@parley/net';
import { Agent, type Dispatcher } from 'undici';

/**
 * The dispatcher media downloads go through when the instance has a proxy. Baileys downloads with
 * the global `fetch`, which ignores the `https.Agent`s the WebSocket and uploads use and takes only
 * an undici dispatcher: an undici `Agent` whose connections are tunnelled through the proxy
 * (HTTP `CONNECT` or SOCKS), to the proxy's address checked by `guard` at each connection. `tls`
 * applies to the connection to the media host (a CA of a TLS-inspecting proxy, or of a test host).
 */
export function mediaDispatcher(proxy: ProxyUrl, guard: ProxyGuard, tls?: ConnectionOptions): Dispatcher {
  return new Agent({ connect: tunnelConnector(proxyTunnel(proxy, guard), tls) });
}
