import type { IncomingHttpHeaders } from 'node:http';
import type { Response } from 'express';
import { util, type Dispatcher } from 'undici';

/**
 * What one forwarding attempt came to: `answered` (the owner's answer went to the client), `retry`
 * (the owner provably did not act on it: the request was never written to the connection, or the owner
 * refused it with a "retry" 503 before serving it) or `unknown` (the request was written, and the
 * connection broke or the attempt was abandoned before an answer began: the owner may have acted on it).
 */
export type Attempt = 'answered' | 'retry' | 'unknown';

/** Answers of a known length up to this are gathered and written in one call; longer ones (media) stream. */
const SMALL_ANSWER_BYTES = 64 * 1024;

/** Hop-by-hop headers (and the length, set apart) are not passed on. */
export const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host', 'content-length']);

/** Writes an answer's status and headers (but hop-by-hop ones) to `res`, its length included. */
export function answerHead(res: Response, status: number, headers: IncomingHttpHeaders): void {
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) res.setHeader(name, value);
  const length = headers['content-length'];
  if (length !== undefined) res.setHeader('content-length', length);
}

/**
 * An undici dispatch handler that passes a node's answer on to the client's `res` as it comes: status
 * and headers, then the bytes (a small answer of known length gathered and written at once; a longer one
 * streamed with back-pressure). A 503 is held until it is complete: when `retryable` says so (the target
 * gave the instance up) nothing reaches the client and the attempt settles `retry`. A failure before the
 * answer began settles `retry` only while the request was not yet written (undici calls `onConnect` right
 * before it writes a request to its connection), else `unknown`. Leaner than undici's `request` (no body stream per answer), which matters on
 * a path every forwarded request takes.
 */
export class AnswerRelay implements Dispatcher.DispatchHandlers {
  readonly settled: Promise<Attempt>;
  private settle!: (attempt: Attempt) => void;
  private abort: ((err?: Error) => void) | undefined;
  private headers: IncomingHttpHeaders | undefined;
  private status = 0;
  /** Gathered bytes (a 503 being checked, or a small answer); null while streaming. */
  private held: Buffer[] | null = null;
  private began = false;
  /** The request is being written or was written to the connection (undici's `onConnect`). */
  private written = false;
  private done = false;
  private abandoned = false;

  constructor(private readonly res: Response, private readonly retryable: (text: string) => boolean, private readonly started?: () => void) {
    this.settled = new Promise((resolve) => (this.settle = (attempt) => {
      this.done = true;
      resolve(attempt);
    }));
    // A client gone while its answer streams: the rest is not read (undici would wait for a drain that never comes).
    res.once('close', () => {
      if (!this.done && this.began && !this.held) this.abort?.(new Error('the client went away'));
    });
  }

  /** Gives the attempt up while no answer has begun (a paused owner): it settles `retry`, or `unknown` once the request was written. */
  abandon(): void {
    if (this.began || this.done) return;
    this.abandoned = true;
    this.abort?.(new Error('abandoned: the owner changed'));
  }

  onConnect(abort: (err?: Error) => void): void {
    this.abort = abort;
    this.written = !this.abandoned;
    if (this.abandoned) abort(new Error('abandoned: the owner changed'));
  }

  onHeaders(statusCode: number, raw: Buffer[], resume: () => void): boolean {
    if (statusCode < 200) return true;
    this.began = true;
    this.started?.();
    this.status = statusCode;
    this.headers = util.parseHeaders(raw) as IncomingHttpHeaders;
    const length = Number(this.headers['content-length']);
    if (statusCode === 503 || length <= SMALL_ANSWER_BYTES) {
      this.held = [];
      return true;
    }
    answerHead(this.res, statusCode, this.headers);
    this.res.on('drain', resume);
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.held) {
      this.held.push(chunk);
      return true;
    }
    return this.res.write(chunk);
  }

  onComplete(): void {
    if (this.held) {
      const data = this.held.length === 1 ? this.held[0]! : Buffer.concat(this.held);
      if (this.status === 503 && this.retryable(data.toString('utf8'))) {
        this.settle('retry');
        return;
      }
      answerHead(this.res, this.status, this.headers!);
      this.res.end(data);
    } else {
      this.res.end();
    }
    this.settle('answered');
  }

  onError(err: Error): void {
    if (!this.began) {
      this.settle(this.written ? 'unknown' : 'retry');
      return;
    }
    // The answer broke off after it began: the client's connection is cut, as the owner's was.
    this.res.destroy(err);
    this.settle('answered');
  }
}
