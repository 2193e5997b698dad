import type { Readable } from 'node:stream';
import type { MediaDownloadTimeoutSetting } from '@parley/core';
import { Dispatcher } from 'undici';

/**
 * What the encrypted file of `n` bytes of media can carry beyond them: AES-CBC padding (at most one
 * 16-byte block) and the 10-byte MAC WhatsApp appends.
 */
const ENCRYPTION_OVERHEAD = 16 + 10;

/** The limits of one {@link DownloadBound} and the errors that end it. */
export interface DownloadLimits {
  /** Largest media, in decrypted bytes. */
  maxBytes: number;
  /** Deadline of the whole download, re-upload requests and redirects included, in ms. */
  timeoutMs: number;
  /** Longest wait for a response's headers once its request is dispatched, then between two chunks of its body, in ms. */
  idleMs: number;
  /** The error of media over `maxBytes`. */
  tooLarge: () => Error;
  /** The error of a download past `timeoutMs` (`media.downloadTimeoutMs`) or `idleMs` (`media.downloadIdleMs`). */
  timedOut: (setting: MediaDownloadTimeoutSetting, ms: number) => Error;
}

/** The state of one request through a {@link DownloadBound} (a redirect or a re-upload makes another). */
interface Hop {
  abort?: (err: Error) => void;
  /** The response's headers were handed on: its body is a stream someone reads from now on. */
  started: boolean;
  received: number;
  failure?: Error;
  /** Fires when nothing arrived for `idleMs`. */
  idle?: NodeJS.Timeout;
}

/**
 * Bounds one media download that Baileys makes with the global `fetch` (`downloadMediaMessage` in
 * stream mode), by wrapping the connection's guarded dispatcher for that download only:
 *
 * - a response that declares (`Content-Length`) or sends more than `maxBytes` plus the encryption
 *   overhead is aborted, which closes its connection;
 * - {@link abort} lets the reader of the decrypted stream stop it the same way once it counted more
 *   than `maxBytes` decrypted bytes (the exact limit);
 * - the download is stopped the same way past its deadline (`timeoutMs` from the bound's creation)
 *   or when a response's headers or its body's next chunk do not come within `idleMs`: the host is
 *   the sender's choice and may answer a byte a minute. {@link race} makes a wait end then too;
 *   call {@link finish} once the download is over.
 *
 * Baileys pipes the response body into its decrypting stream with `pipe`, which does not forward the
 * body's errors: a body that failed would emit an `error` nobody listens to (an uncaught exception
 * that ends the process), and the decrypted stream would never end. So once a body has started, its
 * failure (an abort here, a connection reset by the host) is kept as {@link failure} and the body
 * is ended instead; the reader ends too and answers the failure.
 */
export class DownloadBound extends Dispatcher {
  private hop: Hop | undefined;
  private expired: Error | undefined;
  private readonly deadline: NodeJS.Timeout;
  private expire!: (err: Error) => void;
  /** Resolves with the time limit's error once the download passed one (never otherwise). */
  readonly whenExpired = new Promise<Error>((resolve) => { this.expire = resolve; });

  constructor(
    private readonly inner: Dispatcher,
    /** The limits of this download. */
    readonly limits: DownloadLimits,
  ) {
    super();
    this.deadline = setTimeout(() => this.timeOut('media.downloadTimeoutMs', limits.timeoutMs), limits.timeoutMs);
  }

  /** Why the latest request failed once its body had started, was refused as too large, or the download timed out. */
  get failure(): Error | undefined {
    return this.hop?.failure ?? this.expired;
  }

  /** `pending`, or the time limit's error if the download passes one first. */
  race<T>(pending: Promise<T>): Promise<T> {
    return Promise.race([pending, this.whenExpired.then((err) => { throw err; })]);
  }

  /** Clears the timers; the download is over. */
  finish(): void {
    clearTimeout(this.deadline);
    clearTimeout(this.hop?.idle);
  }

  private timeOut(setting: MediaDownloadTimeoutSetting, ms: number): void {
    if (this.expired) return;
    const err = this.limits.timedOut(setting, ms);
    this.expired = err;
    this.finish();
    this.abort(err);
    this.expire(err);
  }

  /** Stops the current download (closing its connection) with `err`. */
  abort(err: Error): void {
    const hop = this.hop;
    if (!hop) return;
    hop.failure ??= err;
    hop.abort?.(err);
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandlers): boolean {
    clearTimeout(this.hop?.idle);
    const hop: Hop = { started: false, received: 0, ...(this.expired ? { failure: this.expired } : {}) };
    this.hop = hop;
    const { maxBytes, idleMs, tooLarge } = this.limits;
    const limit = maxBytes + ENCRYPTION_OVERHEAD;
    const stop = (err: Error) => {
      hop.failure ??= err;
      hop.abort?.(err);
      return false;
    };
    const awaitMore = () => {
      clearTimeout(hop.idle);
      if (!this.expired) hop.idle = setTimeout(() => this.timeOut('media.downloadIdleMs', idleMs), idleMs);
    };
    awaitMore();
    const bounded: Dispatcher.DispatchHandlers = {
      ...bind(handler),
      onConnect: (abort, ...rest) => {
        hop.abort = abort;
        // Timed out while connecting: stopped as soon as it can be.
        if (hop.failure) return abort(hop.failure);
        return handler.onConnect?.(abort, ...rest);
      },
      onHeaders: (statusCode, headers, resume, statusText) => {
        if (statusCode >= 200 && statusCode < 300 && declaredLength(headers) > limit) return stop(tooLarge());
        hop.started = true;
        awaitMore();
        return handler.onHeaders?.(statusCode, headers, resume, statusText) ?? true;
      },
      onData: (chunk) => {
        hop.received += chunk.length;
        if (hop.received > limit) return stop(tooLarge());
        awaitMore();
        return handler.onData?.(chunk) ?? true;
      },
      onComplete: (trailers) => {
        clearTimeout(hop.idle);
        handler.onComplete?.(trailers);
      },
      onError: (err) => {
        clearTimeout(hop.idle);
        if (!hop.started) {
          handler.onError?.(hop.failure ?? err);
          return;
        }
        hop.failure ??= err;
        handler.onComplete?.([]);
      },
    };
    return this.inner.dispatch(options, bounded);
  }

  // One download's view of the connection's dispatcher: closing it is the connection's business.
  override async close(): Promise<void> {}
  override async destroy(): Promise<void> {}
}

/** The handler's methods bound to it, so those not wrapped keep their `this`. */
function bind(handler: Dispatcher.DispatchHandlers): Dispatcher.DispatchHandlers {
  const bound: Record<string, unknown> = {};
  for (let o: object | null = handler; o && o !== Object.prototype; o = Object.getPrototypeOf(o) as object | null) {
    for (const name of Object.getOwnPropertyNames(o)) {
      const value = (handler as Record<string, unknown>)[name];
      if (name !== 'constructor' && name.startsWith('on') && typeof value === 'function' && !(name in bound)) bound[name] = value.bind(handler);
    }
  }
  return bound as Dispatcher.DispatchHandlers;
}

/** `Content-Length` of raw undici headers (name, value, name, value…); -1 without one. */
function declaredLength(headers: Buffer[] | string[] | null): number {
  if (!headers) return -1;
  for (let i = 0; i + 1 < headers.length; i += 2) {
    if (String(headers[i]).toLowerCase() === 'content-length') {
      const n = Number(String(headers[i + 1]));
      return Number.isFinite(n) ? n : -1;
    }
  }
  return -1;
}

/**
 * Reads the decrypted stream of a download bounded by `bound` into one Buffer: more than
 * `maxBytes` stops the download with `tooLarge()`; a failure the bound kept (a time limit
 * included) wins over the stream's own ending.
 */
export function readBounded(stream: Readable, bound: DownloadBound): Promise<Buffer> {
  const { maxBytes, tooLarge } = bound.limits;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const fail = (err: Error) => {
      if (done) return;
      done = true;
      stream.destroy();
      reject(err);
    };
    void bound.whenExpired.then(fail);
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        const err = tooLarge();
        bound.abort(err);
        fail(err);
      } else chunks.push(chunk);
    });
    stream.on('error', (err: Error) => fail(bound.failure ?? err));
    stream.on('end', () => {
      if (bound.failure) return fail(bound.failure);
      done = true;
      resolve(Buffer.concat(chunks, size));
    });
  });
}
