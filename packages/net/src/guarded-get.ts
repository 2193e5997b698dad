import { connect, type Socket } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { PRIVATE_URLS_HINT } from '@parley/core';
import { Agent, request, type Dispatcher } from 'undici';
import { PRIVATE_PROXY, type ProxyGuard } from './proxy-guard.js';
import { proxyTunnel, type ProxyUrl } from './proxy-url.js';
import { dialAddress, systemResolve, type ResolveHost } from './resolve-host.js';
import { CONNECT_TIMEOUT_MS, tunnelConnector, type OpenTunnel } from './tunnel-connector.js';

/** Limits of {@link guardedGet}. */
export interface GuardedGetLimits {
  /** Largest body accepted, in bytes (checked against Content-Length and while streaming). */
  maxBytes: number;
  /** Time limit of the whole download, redirects included, in milliseconds. */
  timeoutMs: number;
  /**
   * Longest wait for a response's headers once its request is sent, then between two chunks of
   * its body, in milliseconds (failure `idle`); default undici's (300 s).
   */
  idleMs?: number;
  /** When false, a host resolving to a private address is refused at connect time. */
  allowPrivate: boolean;
  /** Redirects followed, each re-checked by `checkRedirect` (default 3). */
  maxRedirects?: number;
}

/** How {@link guardedGet} reaches the hosts: the instance's proxy, a resolver, TLS options. */
export interface GuardedGetRoute {
  /** Connect through this proxy (HTTP `CONNECT` or SOCKS), asking it for the checked address. */
  proxy?: ProxyUrl;
  /**
   * The proxy may be on a private network (default `limits.allowPrivate`: the proxy is held to the
   * same rule as the URLs). Its address is checked each time it is dialled, resolved by `resolve`.
   */
  allowPrivateProxy?: boolean;
  /** Resolves host names (default {@link systemResolve}). */
  resolve?: ResolveHost;
  /** TLS options of the connection to the host (a test CA). */
  tls?: ConnectionOptions;
}

/** Why a {@link guardedGet} failed. */
export type GuardedGetFailure = 'status' | 'too_large' | 'private_address' | 'private_proxy' | 'timeout' | 'idle' | 'network' | 'empty' | 'redirects';

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

const PRIVATE = 'EPRIVATEADDR';

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
 * Opens connections to checked addresses only: the host name is resolved here, once; any private
 * address refuses it (unless allowed); the connection goes to the checked address, directly or
 * through the proxy (which is asked for that address, so neither a second lookup nor the proxy's
 * resolver can rebind the name). The proxy's own address is checked the same way when it is dialled.
 */
function checkedOpener(allowPrivate: boolean, route: GuardedGetRoute): OpenTunnel {
  const resolve = route.resolve ?? systemResolve;
  const guard: ProxyGuard = { allowPrivate: route.allowPrivateProxy ?? allowPrivate, resolve };
  const through = route.proxy ? proxyTunnel(route.proxy, guard) : directConnect;
  return async (host, port) => {
    const { address, privateAddress } = await dialAddress(host, host, resolve, allowPrivate);
    if (privateAddress) throw Object.assign(new Error(`${host} resolves to a private address (${privateAddress})`), { code: PRIVATE });
    return through(address, port);
  };
}

/**
 * An undici dispatcher whose every connection goes to an address checked when connecting, as
 * {@link guardedGet}'s: for a library that fetches URLs it was handed by others with the global
 * `fetch` (which takes a `dispatcher`), such as Baileys' media downloads, whose URL comes from the
 * message a WhatsApp contact sent. Redirects `fetch` follows are new connections through the same
 * dispatcher, so each hop is checked too. Refusals fail the request with code `EPRIVATEADDR` (the
 * host) or `EPRIVATEPROXY` (the proxy). Close it when done.
 */
export function guardedDispatcher(allowPrivate: boolean, route: GuardedGetRoute = {}): Agent {
  return new Agent({ connect: tunnelConnector(checkedOpener(allowPrivate, route), route.tls) });
}

/** Drops a body not read to its end; the connection closes instead of being reused. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy(new Error('body discarded'));
}

/**
 * Downloads `url` (http or https) for a server that must not be turned against its own network:
 * every connection, redirects included, goes to an address checked when connecting (so DNS
 * rebinding is caught), directly or through `route.proxy`; redirects are followed only after
 * `checkRedirect` accepted the next URL; the body is cut off at `maxBytes`; one deadline covers
 * every hop. Throws {@link GuardedGetError}, or whatever `checkRedirect` throws. Check the first
 * URL yourself before calling.
 */
export async function guardedGet(
  url: URL,
  limits: GuardedGetLimits,
  checkRedirect: (next: string) => Promise<URL>,
  route: GuardedGetRoute = {},
): Promise<GuardedGetResult> {
  const agent = guardedDispatcher(limits.allowPrivate, route);
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  let current = url;
  try {
    for (let hop = 0; ; hop++) {
      const answer = await getOnce(current, limits, agent, deadline);
      if ('redirect' in answer) {
        if (hop >= (limits.maxRedirects ?? 3)) throw new GuardedGetError('redirects', 'too many redirects');
        current = await checkRedirect(new URL(answer.redirect, current).href);
        continue;
      }
      return { ...answer, url: current };
    }
  } finally {
    await agent.destroy().catch(() => undefined);
  }
}

async function getOnce(url: URL, limits: GuardedGetLimits, dispatcher: Dispatcher, signal: AbortSignal): Promise<{ data: Buffer; mimetype: string } | { redirect: string }> {
  const { maxBytes, idleMs } = limits;
  const tooLarge = () => new GuardedGetError('too_large', `larger than ${maxBytes} bytes`);
  let res: Dispatcher.ResponseData;
  try {
    res = await request(url, {
      dispatcher, signal, headers: { 'user-agent': 'Parley media fetcher' }, ...(idleMs === undefined ? {} : { headersTimeout: idleMs, bodyTimeout: idleMs }),
    });
  } catch (err) {
    throw failureOf(err, signal);
  }
  const location = res.headers.location;
  if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
    await res.body.dump();
    return { redirect: location };
  }
  if (res.statusCode < 200 || res.statusCode >= 300) {
    await res.body.dump();
    throw new GuardedGetError('status', `HTTP ${res.statusCode}`, res.statusCode);
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
    throw failureOf(err, signal);
  }
  if (size === 0) throw new GuardedGetError('empty', 'empty body');
  const type = res.headers['content-type'];
  return { data: Buffer.concat(chunks), mimetype: (typeof type === 'string' ? type : '').split(';')[0]!.trim().toLowerCase() };
}

function failureOf(err: unknown, signal: AbortSignal): GuardedGetError {
  if (err instanceof GuardedGetError) return err;
  if (signal.aborted) return new GuardedGetError('timeout', 'timed out');
  const e = err as NodeJS.ErrnoException;
  if (e?.code === 'UND_ERR_HEADERS_TIMEOUT' || e?.code === 'UND_ERR_BODY_TIMEOUT') return new GuardedGetError('idle', 'no data for too long');
  if (e?.code === PRIVATE_PROXY) return new GuardedGetError('private_proxy', e.message);
  if (e?.code === PRIVATE) return new GuardedGetError('private_address', `it points to a private network address (${PRIVATE_URLS_HINT})`);
  return new GuardedGetError('network', e?.message ?? String(err));
}
