import { lookup } from 'node:dns/promises';
import { connect, isIP, type Socket } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { assertUrlAllowed, isPrivateAddress, PayloadTooLargeError, PRIVATE_URLS_HINT, ValidationError, type MediaLimits } from '@parley/core';
import { Agent, request, type Dispatcher } from 'undici';
import type { ProxyUrl } from '../connection/proxy.js';
import { httpConnectTunnel, socksTunnel } from '../connection/proxy-tunnels.js';
import { CONNECT_TIMEOUT_MS, tunnelConnector, type OpenTunnel } from '../connection/tunnel-connector.js';

/** Every address of a host name (the system resolver by default; tests point names at addresses). */
export type ResolveHost = (host: string) => Promise<string[]>;

/** The system resolver. */
export const systemResolve: ResolveHost = async (host) => (await lookup(host, { all: true })).map((a) => a.address);

/** What {@link GuardedFetcher} needs. */
export interface GuardedFetcherDeps {
  limits: MediaLimits;
  /** Host setting: URLs may point to private networks. */
  allowPrivate: boolean;
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

const PRIVATE = 'EPRIVATEADDR';

function privateError(host: string, address: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${host} resolves to a private address (${address})`), { code: PRIVATE });
}

/** Drops a body not read to its end; the connection closes instead of being reused. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy(new Error('body discarded'));
}

function directConnect(address: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: address, port, timeout: CONNECT_TIMEOUT_MS });
    socket.once('connect', () => {
      socket.setTimeout(0);
      resolve(socket);
    });
    socket.once('timeout', () => socket.destroy(new Error(`connecting to ${address}:${port} timed out`)));
    socket.once('error', reject);
  });
}

/**
 * Fetches user-supplied URLs for the channel, so that Baileys is handed bytes and never fetches a URL
 * itself. Every connection, redirects included, goes to an address checked at connect time: the
 * host name is resolved here, private addresses are refused (unless allowed), and the connection is
 * made to the checked address, directly or through the instance's proxy (which is then asked for
 * that address, so neither a second lookup nor the proxy's resolver can rebind the name). Bodies
 * are read up to `limits.maxBytes` (413 above), the whole fetch within `limits.timeoutMs`.
 */
export class GuardedFetcher {
  constructor(private readonly deps: GuardedFetcherDeps) {}

  /**
   * Fetches `raw`; `accept` checks the content type. Failures are 400s naming `field` (413 when too large).
   */
  async fetch(raw: string, field: string, accept: (mimetype: string) => boolean): Promise<Fetched> {
    const { allowPrivate } = this.deps;
    let url = await assertUrlAllowed(raw, { field, allowPrivate, resolve: false });
    const agent = new Agent({ connect: tunnelConnector(this.open(await this.deps.proxy()), this.deps.tls) });
    const deadline = AbortSignal.timeout(this.deps.limits.timeoutMs);
    try {
      for (let hop = 0; ; hop++) {
        const answer = await this.get(url, field, agent, deadline);
        if ('redirect' in answer) {
          if (hop >= (this.deps.maxRedirects ?? 3)) throw new ValidationError(`${field} redirects too many times`);
          url = await assertUrlAllowed(new URL(answer.redirect, url).href, { field, allowPrivate, resolve: false });
          continue;
        }
        if (!accept(answer.mimetype)) throw new ValidationError(`${field} has content type ${answer.mimetype || 'none'}, which is not accepted here`);
        return answer;
      }
    } finally {
      await agent.destroy().catch(() => undefined);
    }
  }

  /** Opens connections to checked addresses only. */
  private open(proxy: ProxyUrl | undefined): OpenTunnel {
    const through = proxy ? (proxy.kind === 'http' ? httpConnectTunnel(proxy.url) : socksTunnel(proxy.url)) : directConnect;
    return async (host, port) => through(await this.checkedAddress(host), port);
  }

  private async checkedAddress(host: string): Promise<string> {
    const addresses = isIP(host) ? [host] : await this.deps.resolve(host);
    if (addresses.length === 0) throw new Error(`${host} has no address`);
    const bad = this.deps.allowPrivate ? undefined : addresses.find((a) => isPrivateAddress(a));
    if (bad) throw privateError(host, bad);
    return addresses[0]!;
  }

  private async get(url: URL, field: string, dispatcher: Dispatcher, signal: AbortSignal): Promise<Fetched | { redirect: string }> {
    const { maxBytes } = this.deps.limits;
    const tooLarge = () => new PayloadTooLargeError(`${field} is larger than ${maxBytes} bytes`, { field, limit: maxBytes });
    let res: Dispatcher.ResponseData;
    try {
      res = await request(url, { dispatcher, signal, headers: { 'user-agent': 'Parley media fetcher' } });
    } catch (err) {
      throw this.fetchError(field, err, signal);
    }
    const location = res.headers.location;
    if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
      await res.body.dump();
      return { redirect: location };
    }
    if (res.statusCode < 200 || res.statusCode >= 300) {
      await res.body.dump();
      throw new ValidationError(`${field} could not be fetched: HTTP ${res.statusCode}`);
    }
    if (Number(res.headers['content-length'] ?? 0) > maxBytes) {
      discard(res.body);
      throw tooLarge();
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > maxBytes) {
          discard(res.body);
          throw tooLarge();
        }
        chunks.push(chunk);
      }
    } catch (err) {
      if (err instanceof PayloadTooLargeError) throw err;
      throw this.fetchError(field, err, signal);
    }
    if (size === 0) throw new ValidationError(`${field} could not be fetched: empty body`);
    const type = res.headers['content-type'];
    return { data: Buffer.concat(chunks), mimetype: (typeof type === 'string' ? type : '').split(';')[0]!.trim().toLowerCase() };
  }

  private fetchError(field: string, err: unknown, signal: AbortSignal): ValidationError {
    if (signal.aborted) return new ValidationError(`${field} could not be fetched: timed out`);
    const e = err as NodeJS.ErrnoException;
    if (e?.code === PRIVATE) return new ValidationError(`${field} points to a private network address (${PRIVATE_URLS_HINT})`);
    return new ValidationError(`${field} could not be fetched: ${e?.message ?? String(err)}`);
  }
}
