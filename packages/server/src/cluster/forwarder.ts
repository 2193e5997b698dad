import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { Agent, request } from 'undici';
import type { MatchedRequest } from '../http/router.js';
import { AnswerRelay, HOP_BY_HOP, type Attempt } from './answer-relay.js';
import { isSessionStream } from './session-affinity.js';

/** Header naming the node a request was forwarded by; the owner then checks {@link SECRET_HEADER}. */
export const FORWARDED_BY_HEADER = 'x-parley-forwarded-by';
/** Header carrying the cluster's shared secret on node-to-node calls. */
export const SECRET_HEADER = 'x-parley-cluster-secret';
/** The request id, kept from the client when it sent one, so the owner's log lines match the forwarder's. */
export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * The internal idempotency key of a forwarded request to a route that creates something (a send), when
 * the client gave no `Idempotency-Key`: one per client request, the same on every attempt, so that an
 * attempt sent again after the connection to the owner broke is answered with the first attempt's
 * result instead of running twice (docs/cluster.md). Honoured only with the cluster secret.
 */
export const FORWARD_KEY_HEADER = 'x-parley-forward-key';

/** On a signed inbound webhook forwarded to an instance's owner: the one instance whose entries the owner ingests (docs/cluster.md). */
export const INGEST_FOR_HEADER = 'x-parley-ingest-for';

/** Bodies up to this size are held in memory, so a request can be sent again to a new owner during a handover; larger ones stream once (never sent again). */
export const REPLAYABLE_BODY_BYTES = 1024 * 1024;

/** 503 codes that mean "ask again": the owner is shutting down or gave the instance up. */
const RETRYABLE_CODES = new Set(['instance_moving', 'shutting_down']);

/** A request body ready to forward: held in memory (replayable), streamed (one attempt), or none. */
export type ForwardBody = { kind: 'none' } | { kind: 'buffer'; data: Buffer } | { kind: 'stream' };

/** Reads the body into memory when it is known small enough to replay; streams it otherwise. */
export async function prepareBody(req: Request): Promise<ForwardBody> {
  const length = req.headers['content-length'];
  const chunked = req.headers['transfer-encoding'] !== undefined;
  if (!chunked && (length === undefined || length === '0')) return { kind: 'none' };
  if (chunked || Number(length) > REPLAYABLE_BODY_BYTES) return { kind: 'stream' };
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return { kind: 'buffer', data: Buffer.concat(chunks) };
}

/**
 * Forwards requests to the node owning their instance over keep-alive connections (undici), with the
 * shared secret and the request id, and streams the owner's answer back unchanged (status, headers,
 * bytes). A connection that failed before the request was written, or a "retry" 503 (`instance_moving`,
 * `shutting_down`) from the target, answers `retry`; a connection that broke after it was written
 * answers `unknown`; in both cases nothing was sent to the client.
 */
export class Forwarder {
  private readonly agent = new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 60_000, connections: 256, headersTimeout: 120_000, bodyTimeout: 120_000 });

  constructor(private readonly nodeId: string, private readonly secret: string) {}

  /**
   * One attempt. `abandon` aborts it while no answer has come (the owner's lease moved on: a paused
   * or partitioned owner); the caller decides whether the request may be tried again elsewhere. A
   * body too large to hold streams from the client's request: it can be sent once only.
   */
  async forward(target: string, req: Request, res: Response, body: ForwardBody, abandon?: { signal: AbortSignal; answered: () => void }): Promise<Attempt> {
    const headers = this.headersFor(req);
    if (body.kind === 'buffer') headers['content-length'] = String(body.data.length);
    else if (body.kind === 'stream' && req.headers['content-length']) headers['content-length'] = req.headers['content-length'];
    const relay = new AnswerRelay(res, isRetryableAnswer, abandon?.answered);
    const onAbandon = (): void => relay.abandon();
    abandon?.signal.addEventListener('abort', onAbandon, { once: true });
    try {
      const data = body.kind === 'buffer' ? body.data : body.kind === 'stream' ? req : null;
      // An MCP session's event stream has no heartbeat of its own: it may stay quiet for as long as nothing happens.
      const quiet = isSessionStream(req) ? { bodyTimeout: 0 } : {};
      this.agent.dispatch({ origin: target, path: req.originalUrl, method: req.method as 'GET', headers, body: data, ...quiet }, relay);
      return await relay.settled;
    } finally {
      abandon?.signal.removeEventListener('abort', onAbandon);
    }
  }

  /**
   * Sends the request again with `body` (held in memory) and `extra` headers, for an answer the
   * caller reads itself: the owner's status and body text, or `retry` (not reachable, or a "retry" 503).
   */
  async send(target: string, req: Request, body: Buffer, extra: Record<string, string>): Promise<{ status: number; text: string } | 'retry'> {
    const headers = { ...this.headersFor(req), ...extra, 'content-length': String(body.length) };
    try {
      const answer = await request(`${target}${req.originalUrl}`, { method: req.method as 'POST', headers, body, dispatcher: this.agent });
      const text = await answer.body.text();
      return answer.statusCode === 503 && isRetryableAnswer(text) ? 'retry' : { status: answer.statusCode, text };
    } catch {
      return 'retry';
    }
  }

  /**
   * The client's headers but hop-by-hop ones, with the cluster secret, this node's id, the request id,
   * and the request's internal idempotency key when it has one ({@link forwardKeyOf}).
   */
  private headersFor(req: Request): Record<string, string | string[]> {
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !HOP_BY_HOP.has(name) && name !== FORWARD_KEY_HEADER) headers[name] = value;
    headers[FORWARDED_BY_HEADER] = this.nodeId;
    headers[SECRET_HEADER] = this.secret;
    headers[REQUEST_ID_HEADER] = (req.headers[REQUEST_ID_HEADER] as string | undefined) ?? randomUUID();
    const key = forwardKeyOf(req);
    if (key !== undefined) headers[FORWARD_KEY_HEADER] = key;
    return headers;
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/**
 * The internal idempotency key of a request to a route that creates something and carries no client
 * `Idempotency-Key` (made once, then kept on the request for every attempt and for serving it here);
 * undefined for other requests, which need none (a read) or have the client's.
 */
export function forwardKeyOf(req: Request): string | undefined {
  const matched = req as MatchedRequest;
  if (!matched.parleyIdempotent || req.headers['idempotency-key'] !== undefined) return undefined;
  return (matched.parleyForwardKey ??= randomUUID());
}

/** True for a 503 body whose code means "ask again" (`instance_moving`, `shutting_down`). */
export function isRetryableAnswer(text: string): boolean {
  try {
    return RETRYABLE_CODES.has((JSON.parse(text) as { error?: { code?: string } }).error?.code ?? '');
  } catch {
    return false;
  }
}
