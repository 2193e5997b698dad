import type { ConnectionOptions } from 'node:tls';
import { guardedDispatcher, type ProxyGuard, type ProxyUrl } from '@parley/net';
import type { Dispatcher } from 'undici';

/** How {@link mediaDispatcher} reaches media hosts. */
export interface MediaRoute {
  /** The instance's proxy; undefined for direct connections. */
  proxy: ProxyUrl | undefined;
  /** Host setting: media hosts may be on private networks (`allowPrivateUrls`). */
  allowPrivate: boolean;
  /** How the proxy's address is checked when it is dialled; its resolver resolves media hosts too. */
  proxyGuard: ProxyGuard;
  /** TLS options of the connection to the media host (a CA of a TLS-inspecting proxy, or of a test host). */
  tls?: ConnectionOptions;
}

/**
 * The dispatcher every download Baileys makes goes through (message media, and its own history-sync
 * and app-state blobs). Baileys downloads with the global `fetch`, which takes an undici dispatcher
 * and ignores the `https.Agent`s of the WebSocket and uploads. The URL is not Parley's: Baileys
 * takes it from the message a contact sent (`url`, or `directPath` on the host of `url`), so it can
 * name any address. Each connection, redirects included, goes to an address checked when
 * connecting (refused when private, unless allowed), directly or through the proxy, which is asked
 * for that checked address; the proxy's own address is checked by `proxyGuard` at each connection.
 */
export function mediaDispatcher(route: MediaRoute): Dispatcher {
  return guardedDispatcher(route.allowPrivate, {
    proxy: route.proxy, allowPrivateProxy: route.proxyGuard.allowPrivate,
    ...(route.proxyGuard.resolve ? { resolve: route.proxyGuard.resolve } : {}),
    ...(route.tls ? { tls: route.tls } : {}),
  });
}
