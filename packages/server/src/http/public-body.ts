import type { Request, Response } from 'express';
import { ParleyError } from '@parley/core';
import type { PublicBodiesConfig } from '../config/config.js';
import { closeAfterAnswer } from './early-answer.js';
import type { PrereadRequest } from './json-body.js';
import type { BodyReader } from './router.js';

/** The bytes held for one body: taken as the body is admitted or arrives, given back once. */
class Reservation {
  private held = 0;
  private released = false;

  constructor(private readonly budget: { free: number }) {}

  /** Takes `bytes` more; false (nothing taken) when they do not fit or the reservation was released. */
  take(bytes: number): boolean {
    if (this.released || bytes > this.budget.free) return false;
    this.budget.free -= bytes;
    this.held += bytes;
    return true;
  }

  /** Gives every byte back (again: nothing). */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.budget.free += this.held;
    this.held = 0;
  }
}

/**
 * Wraps the body reader for routes whose caller is not authenticated when the body is read (a public
 * route: anyone can send to Meta's signed webhooks, whose signature is checkable only once the body is
 * in). Two bounds keep what such bodies cost small:
 * - time: the body must arrive within `timeoutMs`, or the request is answered 408 `request_timeout`
 *   with `Connection: close` and the connection closed (Node's own `requestTimeout` is 5 minutes);
 * - memory: at most `maxBufferedBytes` are held at once across all of them. A declared
 *   `Content-Length` is taken before a byte is read; a chunked body takes its bytes as they arrive; a
 *   compressed body takes the route's limit (what it may inflate to). One that does not fit is
 *   answered 503 `server_busy` with `Retry-After` and `Connection: close`, and nothing more is read.
 * The bytes are given back when the body is read, fails, times out, is refused, or its client goes.
 */
export function publicBodyReader(read: BodyReader, limits: PublicBodiesConfig): BodyReader {
  const budget = { free: limits.maxBufferedBytes };
  const retryAfterSeconds = Math.max(1, Math.ceil(limits.timeoutMs / 1000));
  const busy = (req: Request, res: Response): ParleyError => {
    res.setHeader('Retry-After', String(retryAfterSeconds));
    closeAfterAnswer(req, res);
    return new ParleyError(503, 'server_busy', `too many request bodies of unauthenticated callers are being received; retry in ${retryAfterSeconds} s`, {
      retryAfterSeconds, setting: 'publicBodies.maxBufferedBytes',
    });
  };

  return (req, res, limitBytes) => {
    // Already in memory (a cluster node read it to forward it): nothing is left to receive.
    if ((req as PrereadRequest).prereadBody) return read(req, res, limitBytes);
    const length = req.headers['content-length'];
    const encoding = req.headers['content-encoding'];
    const compressed = encoding !== undefined && encoding !== 'identity';
    const chunked = req.headers['transfer-encoding'] !== undefined;
    // Over the route's limit: the reader refuses it (413) before reading.
    if (!chunked && !compressed && length !== undefined && Number(length) > limitBytes) return read(req, res, limitBytes);
    const reservation = new Reservation(budget);
    const upFront = compressed ? limitBytes : chunked ? 0 : Number(length ?? 0);
    if (!reservation.take(upFront)) return Promise.reject(busy(req, res));

    return new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer): void => {
        if (!reservation.take(chunk.length)) stop(busy(req, res));
      };
      const done = (): void => {
        clearTimeout(timer);
        req.off('data', onData);
        req.off('close', done);
        reservation.release();
      };
      const stop = (err: ParleyError): void => {
        done();
        reject(err);
      };
      const timer = setTimeout(() => {
        closeAfterAnswer(req, res);
        stop(new ParleyError(408, 'request_timeout', `the request body did not arrive within ${limits.timeoutMs} ms, the limit of unauthenticated callers (publicBodies.timeoutMs)`, {
          limitMs: limits.timeoutMs, setting: 'publicBodies.timeoutMs',
        }));
      }, limits.timeoutMs);
      // The client went away: its bytes are given back even if the reader never settles.
      req.once('close', done);
      const reading = read(req, res, limitBytes);
      // A body of known size took its bytes already; a chunked one takes them as they come (counted
      // after the reader listens, so that no chunk flows past it).
      if (chunked && !compressed) req.on('data', onData);
      reading.then(
        () => {
          done();
          resolve();
        },
        (err: unknown) => {
          done();
          // After a refusal or a timeout the request is already answered: the reader's failure is moot.
          reject(err);
        },
      );
    });
  };
}
