import type { Readable } from 'node:stream';
import { Dispatcher } from 'undici';

/**
 * What the encrypted file of `n` bytes of media can carry beyond them: AES-CBC padding (at most one
 * 16-byte block) and the 10-byte MAC WhatsApp appends.
 */
const ENCRYPTION_OVERHEAD = 16 + 10;

/** The state of one request through a {@link DownloadBound} (a redirect or a re-upload makes another). */
interface Hop {
  abort?: (err: Error) => void;
  /** The response's headers were handed on: its body is a stream someone reads from now on. */
  started: boolean;
  received: number;
  failure?: Error;
}

/**
 * Bounds one media download that Baileys makes with the global `fetch` (`downloadMediaMessage` in
 * stream mode), by wrapping the connection's guarded dispatcher for that download only:
 *
 * - a response that declares (`Content-Length`) or sends more than `maxBytes` plus the encryption
 *   overhead is aborted, which closes its connection;
 * - {@link abort} lets the reader of the decrypted stream stop it the same way once it counted more
 *   than `maxBytes` decrypted bytes (the exact limit).
 *
 * Baileys pipes the response body into its decrypting stream with `pipe`, which does not forward the
 * body's errors: a body that failed would emit an `error` nobody listens to (an uncaught exception
 * that ends the process), and the decrypted stream would never end. So once a body has started, its
 * failure (an abort here, a connection reset by the host) is kept as {@link failure} and the body
 * is ended instead; the reader ends too and answers the failure.
 */
export class DownloadBound extends Dispatcher {
  private hop: Hop | undefined;

  constructor(
    private readonly inner: Dispatcher,
    private readonly maxBytes: number,
    private readonly tooLarge: () => Error,
  ) {
    super();
  }

  /** Why the latest request failed once its body had started, or was refused as too large. */
  get failure(): Error | undefined {
    return this.hop?.failure;
  }

  /** Stops the current download (closing its connection) with `err`. */
  abort(err: Error): void {
    const hop = this.hop;
    if (!hop) return;
    hop.failure ??= err;
    hop.abort?.(err);
  }

  override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandlers): boolean {
    const hop: Hop = { started: false, received: 0 };
    this.hop = hop;
    const limit = this.maxBytes + ENCRYPTION_OVERHEAD;
    const stop = (err: Error) => {
      hop.failure ??= err;
      hop.abort?.(err);
      return false;
    };
    const bounded: Dispatcher.DispatchHandlers = {
      ...bind(handler),
      onConnect: (abort, ...rest) => {
        hop.abort = abort;
        return handler.onConnect?.(abort, ...rest);
      },
      onHeaders: (statusCode, headers, resume, statusText) => {
        if (statusCode >= 200 && statusCode < 300 && declaredLength(headers) > limit) return stop(this.tooLarge());
        hop.started = true;
        return handler.onHeaders?.(statusCode, headers, resume, statusText) ?? true;
      },
      onData: (chunk) => {
        hop.received += chunk.length;
        if (hop.received > limit) return stop(this.tooLarge());
        return handler.onData?.(chunk) ?? true;
      },
      onError: (err) => {
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
 * Reads the decrypted stream of a download bounded by `bound` into one Buffer: more than `maxBytes`
 * stops the download with `tooLarge()`; a failure the bound kept wins over the stream's own ending.
 */
export function readBounded(stream: Readable, bound: DownloadBound, maxBytes: number, tooLarge: () => Error): Promise<Buffer> {
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
