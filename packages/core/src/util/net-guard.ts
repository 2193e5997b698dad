import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { isIP } from 'node:net';
import { ValidationError } from '../errors.js';
import { isPrivateAddress } from './address-class.js';

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

/** Options of {@link assertUrlAllowed}. */
export interface UrlCheck {
  /** Field name for the error message. */
  field: string;
  /** Allowed schemes without colon; default http and https. */
  protocols?: string[];
  allowPrivate: boolean;
  /** Resolve the host name and check every address (default true). */
  resolve?: boolean;
}

/** How an operator allows URLs on private networks: said in every refusal, so the fix is in the message. */
export const PRIVATE_URLS_HINT = 'set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs';

/**
 * Validates a user-supplied URL: parseable, an allowed scheme, and (unless private networks are
 * allowed) not pointing at a private address, by literal or by DNS. Throws ValidationError naming the
 * field. Answers the parsed URL.
 */
export async function assertUrlAllowed(raw: string, check: UrlCheck): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ValidationError(`${check.field} must be an absolute URL`);
  }
  const protocols = check.protocols ?? ['http', 'https'];
  if (!protocols.includes(url.protocol.slice(0, -1))) {
    throw new ValidationError(`${check.field} must use ${protocols.join(', ')}`);
  }
  if (!url.hostname) throw new ValidationError(`${check.field} has no host`);
  if (check.allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    if (isPrivateAddress(host)) throw new ValidationError(`${check.field} points to a private network address (${PRIVATE_URLS_HINT})`);
    return url;
  }
  // A trailing dot (the fully qualified spelling, `localhost.`) names the same host.
  if (/^localhost$|\.localhost$|\.local$|\.internal$/i.test(host.replace(/\.$/, ''))) {
    throw new ValidationError(`${check.field} points to a private network host (${PRIVATE_URLS_HINT})`);
  }
  if (check.resolve === false) return url;
  const addresses = await new Promise<LookupAddress[]>((resolve, reject) =>
    dnsLookup(host, { all: true }, (err, list) => (err ? reject(err) : resolve(list))),
  ).catch(() => {
    throw new ValidationError(`${check.field} host cannot be resolved`);
  });
  if (addresses.some((a) => isPrivateAddress(a.address))) {
    throw new ValidationError(`${check.field} points to a private network address (${PRIVATE_URLS_HINT})`);
  }
  return url;
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
