import { Agent, buildConnector, type Dispatcher } from 'undici';
import { guardedLookup, privateLiteralError } from '@parley/host';
import { BoundedMemo } from './bounded-memo.js';

/** An HTTP answer to one attempt. */
export interface HttpAnswer {
  status: number;
  /** From request start until the answer's body ended, in whole ms. */
  responseTimeMs: number;
  retryAfter?: string;
}

/** Raised when an attempt runs out of time; other failures are network errors. */
export class AttemptTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(timeoutMs: number) {
    super(`no complete answer within ${timeoutMs} ms`);
  }
}

/** Raised when the shutdown signal aborts an attempt. */
class AttemptAbortedError extends Error {
  readonly code = 'ABORT_ERR';
  constructor() {
    super('the attempt was aborted');
  }
}

/** Where an attempt goes: `origin` for undici's connection pools, `path` with its query. */
interface Target {
  origin: string;
  path: string;
}

/** The target of `url`, or the message an attempt to it fails with (not a URL, not HTTP). */
function parseTarget(url: string): Target | string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'invalid URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return `unsupported scheme ${parsed.protocol}`;
  return { origin: parsed.origin, path: parsed.pathname + parsed.search };
}

/** Idle keep-alive connections are closed after this long (ms) unless the receiver asks for less. */
const KEEP_ALIVE_MS = 30_000;

/**
 * undici's own connector (TLS with session reuse, TCP keep-alive, no Nagle delay) behind core's
 * connect-time guard (the one every dial Parley makes for users goes through): a host name is resolved through
 * {@link guardedLookup}, which refuses it when any of its addresses is private (DNS rebinding
 * included: the address checked is the address dialled); an IP literal, which skips the lookup, is
 * checked right before the socket opens. Refusals fail the attempt with code `EPRIVATEADDR`.
 */
function guardedConnector(allowPrivate: boolean): buildConnector.connector {
  const connect = buildConnector({ lookup: guardedLookup(allowPrivate) } as buildConnector.BuildOptions);
  if (allowPrivate) return connect;
  return (options, callback) => {
    const refused = privateLiteralError(options.hostname);
    if (refused) callback(refused, null);
    else connect(options, callback);
  };
}

/**
 * POSTs webhook bodies over keep-alive connections (undici, up to `maxSockets` per origin). Addresses
 * that are not public are refused at connect time ({@link guardedConnector}) unless private URLs are
 * allowed. Redirects are not followed; the answer's body is read and dropped.
 */
export class HttpSender {
  private readonly agent: Agent;
  /** The origin and path of each URL, parsed once (a lane's URL is the same for each of its deliveries), or why it cannot be posted to. */
  private readonly targets = new BoundedMemo(4_096, parseTarget);

  constructor(allowPrivate: boolean, private readonly userAgent: string, maxSockets: number) {
    this.agent = new Agent({ connect: guardedConnector(allowPrivate), connections: maxSockets, keepAliveTimeout: KEEP_ALIVE_MS, keepAliveMaxTimeout: KEEP_ALIVE_MS });
  }

  /**
   * Sends one attempt. Rejects on network errors, on time-out and when `signal` aborts. `headers` is
   * the attempt's own object: the user agent is added to it.
   */
  post(url: string, headers: Record<string, string>, body: string, timeoutMs: number, signal: AbortSignal): Promise<HttpAnswer> {
    const target = this.targets.get(url);
    if (typeof target === 'string') return Promise.reject(new Error(target));
    if (signal.aborted) return Promise.reject(new AttemptAbortedError());
    headers['user-agent'] = this.userAgent;
    return new Promise((resolve, reject) => {
      const started = performance.now();
      let status = 0;
      let retryAfter: string | undefined;
      let cancel: ((error: Error) => void) | undefined;
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        outcome();
      };
      // Fails the attempt now and ends its request (undici closes the connection of a request cut off).
      const fail = (error: Error) => {
        settle(() => reject(error));
        cancel?.(error);
      };
      const onAbort = () => fail(new AttemptAbortedError());
      const timer = setTimeout(() => fail(new AttemptTimeoutError(timeoutMs)), timeoutMs);
      signal.addEventListener('abort', onAbort);
      const handler: Dispatcher.DispatchHandlers = {
        onConnect: (abort) => {
          if (settled) abort();
          else cancel = abort;
        },
        onHeaders: (statusCode, rawHeaders) => {
          status = statusCode;
          retryAfter = headerOf(rawHeaders, 'retry-after');
          return true;
        },
        onData: () => true,
        onComplete: () => settle(() => resolve({
          status, responseTimeMs: Math.round(performance.now() - started), ...(retryAfter === undefined ? {} : { retryAfter }),
        })),
        onError: (error) => settle(() => reject(error)),
      };
      this.agent.dispatch({ origin: target.origin, path: target.path, method: 'POST', body, headers }, handler);
    });
  }

  /** Closes every connection. */
  destroy(): void {
    void this.agent.destroy().catch(() => undefined);
  }
}

/**
 * A header of an answer (undici hands them over raw: name, value, name, value…), case-insensitively.
 * Only names of `name`'s length are decoded (`name` is ASCII): most answers carry no such header.
 */
function headerOf(raw: Buffer[] | string[] | null, name: string): string | undefined {
  if (!raw) return undefined;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const header = raw[i]!;
    if (header.length === name.length && header.toString().toLowerCase() === name) return raw[i + 1]!.toString();
  }
  return undefined;
}
