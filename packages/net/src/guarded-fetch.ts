import type { ConnectionOptions } from 'node:tls';
import { assertUrlAllowed, PayloadTooLargeError, PRIVATE_URLS_HINT, ValidationError, type MediaLimits } from '@parley/core';
import { guardedGet, GuardedGetError } from './guarded-get.js';
import type { ResolveHost } from './resolve-host.js';
import type { ProxyUrl } from './proxy-url.js';

/** What {@link GuardedFetcher} needs. */
export interface GuardedFetcherDeps {
  limits: MediaLimits;
  /** Host setting: URLs may point to private networks. */
  allowPrivate: boolean;
  /** The instance's proxy may be on a private network (default `allowPrivate`). */
  allowPrivateProxy?: boolean;
  resolve: ResolveHost;
  /** The instance's proxy at the time of the fetch; undefined for a direct connection. */
  proxy(): Promise<ProxyUrl | undefined>;
  /** TLS options of the connection to the media host (a test CA). */
  tls?: ConnectionOptions;
  /** Redirects followed, each checked again (default 3). */
  maxRedirects?: number;
}

/** Bytes fetched from a URL and their declared content type (without parameters). */
export interface Fetched {
  data: Buffer;
  mimetype: string;
}

/**
 * {@link guardedGet} for a channel that must hand its library bytes, never a URL (catalog and card
 * images, group pictures): the instance's proxy is read at each fetch, and every failure is a 400
 * naming `field` (413 when too large), in the words the channel's API documents.
 */
export class GuardedFetcher {
  constructor(private readonly deps: GuardedFetcherDeps) {}

  /**
   * Fetches `raw`; `accept` checks the content type. Failures are 400s naming `field` (413 when too large).
   */
  async fetch(raw: string, field: string, accept: (mimetype: string) => boolean): Promise<Fetched> {
    const { allowPrivate, limits } = this.deps;
    const check = (value: string) => assertUrlAllowed(value, { field, allowPrivate, resolve: false });
    const url = await check(raw);
    let answer: Fetched;
    try {
      answer = await guardedGet(url, { maxBytes: limits.maxBytes, timeoutMs: limits.timeoutMs, allowPrivate, maxRedirects: this.deps.maxRedirects }, check, {
        proxy: await this.deps.proxy(), resolve: this.deps.resolve, tls: this.deps.tls,
        ...(this.deps.allowPrivateProxy === undefined ? {} : { allowPrivateProxy: this.deps.allowPrivateProxy }),
      });
    } catch (err) {
      throw err instanceof GuardedGetError ? this.failure(err, field) : err;
    }
    if (!accept(answer.mimetype)) throw new ValidationError(`${field} has content type ${answer.mimetype || 'none'}, which is not accepted here`);
    return { data: answer.data, mimetype: answer.mimetype };
  }

  private failure(err: GuardedGetError, field: string): Error {
    const { maxBytes } = this.deps.limits;
    if (err.failure === 'too_large') return new PayloadTooLargeError(`${field} is larger than ${maxBytes} bytes`, { field, limit: maxBytes });
    if (err.failure === 'redirects') return new ValidationError(`${field} redirects too many times`);
    if (err.failure === 'private_address') return new ValidationError(`${field} points to a private network address (${PRIVATE_URLS_HINT})`);
    return new ValidationError(`${field} could not be fetched: ${err.message}`);
  }
}
