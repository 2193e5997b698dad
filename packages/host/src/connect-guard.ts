import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { isIP } from 'node:net';
import { isPrivateAddress, PRIVATE_URLS_HINT } from '@parley/core';

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for `http.request`/`net.connect` that refuses private addresses at connect time, so a
 * host that resolves differently between validation and connection (DNS rebinding) is still refused.
 * Node skips `lookup` for IP literals: check those with {@link privateLiteralError} right before dialling.
 */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: LookupOneOptions | LookupAllOptions | number, callback: LookupCallback): void => {
    const opts = typeof options === 'number' ? { family: options } : options;
    dnsLookup(hostname, { ...opts, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const list = addresses as LookupAddress[];
      const bad = allowPrivate ? undefined : list.find((a) => isPrivateAddress(a.address));
      if (bad) {
        const e: NodeJS.ErrnoException = new Error(`${hostname} resolves to a private address (${bad.address})`);
        e.code = 'EPRIVATEADDR';
        return callback(e, '');
      }
      if ((opts as LookupAllOptions).all) return callback(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      callback(null, first.address, first.family);
    });
  };
}

/**
 * The error for dialling `host` when it is an IP literal that is not public (code `EPRIVATEADDR`,
 * like {@link guardedLookup}); undefined for public literals and host names, which the lookup checks.
 * `net.connect` skips `lookup` for literals, so this is the connect-time check for them.
 */
export function privateLiteralError(host: string | null | undefined): NodeJS.ErrnoException | undefined {
  const bare = (host ?? '').replace(/^\[|\]$/g, '');
  if (isIP(bare) === 0 || !isPrivateAddress(bare)) return undefined;
  return Object.assign(new Error(`${bare} is a private address (${PRIVATE_URLS_HINT})`), { code: 'EPRIVATEADDR' });
}
