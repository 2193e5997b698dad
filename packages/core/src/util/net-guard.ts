import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { ValidationError } from '../errors.js';
import { isPrivateAddress } from './address-class.js';

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
