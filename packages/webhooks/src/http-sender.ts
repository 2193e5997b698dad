import { request as httpRequest, type Agent as HttpAgent, type IncomingMessage } from 'node:http';
import { request as httpsRequest, type Agent as HttpsAgent } from 'node:https';
import { guardedAgents } from '@parley/core';

/** An HTTP answer to one attempt. */
export interface HttpAnswer {
  status: number;
  /** From request start until the answer's body ended, in whole ms. */
  responseTimeMs: number;
  retryAfter?: string;
}

/** Raised when an attempt runs out of time; other failures are Node's network errors. */
export class AttemptTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(timeoutMs: number) {
    super(`no complete answer within ${timeoutMs} ms`);
  }
}

/**
 * POSTs webhook bodies over keep-alive connections. Addresses that are not public are refused at
 * connect time by core's guarded agents (host names through their DNS lookup, so DNS rebinding is
 * caught; IP literals, which skip the lookup, right before the socket opens), unless private URLs
 * are allowed. Redirects are not followed.
 */
export class HttpSender {
  private readonly http: HttpAgent;
  private readonly https: HttpsAgent;

  constructor(allowPrivate: boolean, private readonly userAgent: string, maxSockets: number) {
    const agents = guardedAgents(allowPrivate, { keepAlive: true, maxSockets });
    this.http = agents.http;
    this.https = agents.https;
  }

  /** Sends one attempt. Rejects on network errors, on time-out and when `signal` aborts. */
  post(url: string, headers: Record<string, string>, body: string, timeoutMs: number, signal: AbortSignal): Promise<HttpAnswer> {
    const target = new URL(url);
    const secure = target.protocol === 'https:';
    if (!secure && target.protocol !== 'http:') return Promise.reject(new Error(`unsupported scheme ${target.protocol}`));
    const payload = Buffer.from(body, 'utf8');
    return new Promise((resolve, reject) => {
      const started = performance.now();
      const request = (secure ? httpsRequest : httpRequest)(target, {
        method: 'POST',
        agent: secure ? this.https : this.http,
        signal,
        // Object.assign: a spread followed by new members costs V8 a new hidden class per request.
        headers: Object.assign({}, headers, { 'user-agent': this.userAgent, 'content-length': String(payload.length) }),
      });
      let settled = false;
      const settle = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        outcome();
      };
      const timer = setTimeout(() => {
        const error = new AttemptTimeoutError(timeoutMs);
        settle(() => reject(error));
        request.destroy(error);
      }, timeoutMs);
      request.on('error', (error) => settle(() => reject(error)));
      request.on('close', () => settle(() => reject(new Error('connection closed before the answer was complete'))));
      request.on('response', (response: IncomingMessage) => {
        response.on('error', (error) => settle(() => reject(error)));
        response.on('end', () => settle(() => resolve({
          status: response.statusCode ?? 0,
          responseTimeMs: Math.round(performance.now() - started),
          ...(typeof response.headers['retry-after'] === 'string' ? { retryAfter: response.headers['retry-after'] } : {}),
        })));
        // The answer's body is not used; reading it frees the connection for reuse.
        response.resume();
      });
      request.end(payload);
    });
  }

  /** Closes every connection. */
  destroy(): void {
    this.http.destroy();
    this.https.destroy();
  }
}
