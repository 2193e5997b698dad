import type { ConnectionOptions } from 'node:tls';
import { Agent, ProxyAgent, type Dispatcher } from 'undici';
import type { ProxyUrl } from './proxy.js';
import { socksConnector } from './socks-connector.js';

/**
 * The dispatcher media downloads go through when the instance has a proxy. Baileys downloads with
 * the global `fetch`, which ignores the `https.Agent`s the WebSocket and uploads use and takes only
 * an undici dispatcher: an HTTP(S) proxy gets undici's CONNECT-tunnelling `ProxyAgent`, a SOCKS
 * proxy an undici `Agent` whose connections are opened through the SOCKS server.
 * `tls` applies to the connection to the media host (a CA of a TLS-inspecting proxy, or of a test host).
 */
export function mediaDispatcher(proxy: ProxyUrl, tls?: ConnectionOptions): Dispatcher {
  if (proxy.kind === 'http') return new ProxyAgent({ uri: proxy.url.href, ...(tls ? { requestTls: tls } : {}) });
  return new Agent({ connect: socksConnector(proxy.url, tls) });
}
