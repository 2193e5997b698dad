import { isIP } from 'node:net';
import { PRIVATE_URLS_HINT } from '@parley/core';
import { dialAddress, systemResolve, type ResolveHost } from './resolve-host.js';

/** How a proxy's address is checked each time the proxy is dialled. */
export interface ProxyGuard {
  /** The proxy may be on a private network (the host's `allowPrivateUrls`). */
  allowPrivate: boolean;
  /** Resolves the proxy's host name (default {@link systemResolve}). */
  resolve?: ResolveHost;
}

/** `code` of the error a proxy on a private network is refused with. */
export const PRIVATE_PROXY = 'EPRIVATEPROXY';

/** Where to dial a proxy: a checked address, and the name the proxy's TLS certificate must match. */
export interface CheckedProxy {
  address: string;
  port: number;
  /** The proxy's host name, for SNI and certificate checks of an `https` proxy; absent for an IP literal. */
  servername?: string;
  /** The proxy URL (credentials kept) with its host replaced by `address`. */
  url: URL;
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * Resolves a proxy's host when it is about to be dialled and refuses it when any of its addresses is
 * private (unless `guard.allowPrivate`). Dial `address`, never the name again: the URL was checked
 * when it was saved, but a name can resolve elsewhere later (DNS rebinding), so only the address
 * checked here is safe. Throws an Error with code {@link PRIVATE_PROXY} (or the resolver's error).
 */
export async function checkProxy(url: URL, guard: ProxyGuard): Promise<CheckedProxy> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const { address, privateAddress } = await dialAddress(host, `the proxy ${host}`, guard.resolve ?? systemResolve, guard.allowPrivate);
  if (privateAddress) {
    throw Object.assign(new Error(`the proxy ${host} points to a private network address (${PRIVATE_URLS_HINT})`), { code: PRIVATE_PROXY });
  }
  const checked = new URL(url.href);
  checked.hostname = isIP(address) === 6 ? `[${address}]` : address;
  return {
    address,
    port: url.port ? Number(url.port) : DEFAULT_PORTS[url.protocol] ?? 1080,
    ...(isIP(host) ? {} : { servername: host }),
    url: checked,
  };
}
