import http from 'node:http';
import https from 'node:https';
import { guardedLookup, PRIVATE_URLS_HINT } from './net-guard.js';

/** Limits of {@link guardedGet}. */
export interface GuardedGetLimits {
  /** Largest body accepted, in bytes (checked against Content-Length and while streaming). */
  maxBytes: number;
  /** Time limit of the whole download, redirects included, in milliseconds. */
  timeoutMs: number;
  /** When false, a host resolving to a private address is refused at connect time. */
  allowPrivate: boolean;
  /** Redirects followed, each re-checked by `checkRedirect` (default 3). */
  maxRedirects?: number;
}

/** Why a {@link guardedGet} failed. */
export type GuardedGetFailure = 'status' | 'too_large' | 'private_address' | 'timeout' | 'network' | 'empty' | 'redirects';

/** A failed {@link guardedGet}; callers turn it into the error their API answers. */
export class GuardedGetError extends Error {
  constructor(
    readonly failure: GuardedGetFailure,
    message: string,
    /** HTTP status of the answer, for `status`. */
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = 'GuardedGetError';
  }
}

/** What {@link guardedGet} answers. */
export interface GuardedGetResult {
  data: Buffer;
  /** Content-Type without parameters, lower-cased; empty when the server sent none. */
  mimetype: string;
  /** The URL that answered (after redirects). */
  url: URL;
}

function mimeOf(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * Downloads `url` (http or https) for a server that must not be turned against its own network:
 * addresses are checked at connect time with {@link guardedLookup} (so DNS rebinding is caught),
 * redirects are followed only after `checkRedirect` accepted the next URL, the body is cut off at
 * `maxBytes`, and one deadline covers every hop. Throws {@link GuardedGetError}, or whatever
 * `checkRedirect` throws. Check the first URL yourself before calling.
 */
export async function guardedGet(
  url: URL,
  limits: GuardedGetLimits,
  checkRedirect: (next: string) => Promise<URL>,
): Promise<GuardedGetResult> {
  // A time-out of this one request, not domain time: monotonic, and no test clock moves it.
  const deadline = performance.now() + limits.timeoutMs;
  let current = url;
  for (let hop = 0; ; hop++) {
    const answer = await getOnce(current, limits, deadline);
    if ('redirect' in answer) {
      if (hop >= (limits.maxRedirects ?? 3)) throw new GuardedGetError('redirects', 'too many redirects');
      current = await checkRedirect(new URL(answer.redirect, current).href);
      continue;
    }
    return { ...answer, url: current };
  }
}

function getOnce(url: URL, limits: GuardedGetLimits, deadline: number): Promise<{ data: Buffer; mimetype: string } | { redirect: string }> {
  const client = url.protocol === 'https:' ? https : http;
  const remaining = deadline - performance.now();
  if (remaining <= 0) return Promise.reject(new GuardedGetError('timeout', 'timed out'));
  const tooLarge = () => new GuardedGetError('too_large', `larger than ${limits.maxBytes} bytes`);
  return new Promise((resolve, reject) => {
    const req = client.get(url, { lookup: guardedLookup(limits.allowPrivate) as never, timeout: remaining, headers: { 'user-agent': 'Parley media fetcher' } }, (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume();
        resolve({ redirect: res.headers.location });
        return;
      }
      if (status < 200 || status >= 300) {
        res.resume();
        reject(new GuardedGetError('status', `HTTP ${status}`, status));
        return;
      }
      if (Number(res.headers['content-length'] ?? 0) > limits.maxBytes) {
        res.destroy();
        reject(tooLarge());
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.maxBytes) {
          res.destroy();
          reject(tooLarge());
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => {
        if (size === 0) reject(new GuardedGetError('empty', 'empty body'));
        else resolve({ data: Buffer.concat(chunks), mimetype: mimeOf(res.headers['content-type']) });
      });
      res.on('error', (err) => reject(new GuardedGetError('network', err.message)));
    });
    req.on('timeout', () => req.destroy(new GuardedGetError('timeout', 'timed out')));
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err instanceof GuardedGetError) reject(err);
      else if (err.code === 'EPRIVATEADDR') reject(new GuardedGetError('private_address', `it points to a private network address (${PRIVATE_URLS_HINT})`));
      else reject(new GuardedGetError('network', err.message));
    });
  });
}
