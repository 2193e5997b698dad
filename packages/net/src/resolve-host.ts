import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPrivateAddress } from '@parley/core';

/** Every address of a host name (the system resolver by default; tests point names at addresses). */
export type ResolveHost = (host: string) => Promise<string[]>;

/** The system resolver. */
export const systemResolve: ResolveHost = async (host) => (await lookup(host, { all: true })).map((a) => a.address);

/** The address to dial for a host, and the first private address among all of its addresses, if any. */
export interface DialAddress {
  address: string;
  privateAddress?: string;
}

/**
 * Resolves `host` once (an IP literal is its own address) for a connect-time check: answers the
 * address to dial and, unless `allowPrivate`, the first of its addresses that is private — one is
 * enough to refuse the host. Throws `ENOTFOUND` naming `what` when there is no address.
 */
export async function dialAddress(host: string, what: string, resolve: ResolveHost, allowPrivate: boolean): Promise<DialAddress> {
  const addresses = isIP(host) ? [host] : await resolve(host);
  const address = addresses[0];
  if (address === undefined) throw Object.assign(new Error(`${what} has no address`), { code: 'ENOTFOUND' });
  const privateAddress = allowPrivate ? undefined : addresses.find((a) => isPrivateAddress(a));
  return privateAddress === undefined ? { address } : { address, privateAddress };
}
