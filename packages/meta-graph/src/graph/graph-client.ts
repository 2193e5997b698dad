import { createHmac } from 'node:crypto';
import { graphErrorFromAnswer, graphNetworkError, GraphApiError } from './graph-error.js';

/** Where and how the client talks to the Graph API. */
export interface GraphClientConfig {
  /** Origin (and optional path prefix) without the version, for example `https://graph.facebook.com`. */
  baseUrl: string;
  /** Version segment, for example `v26.0`. */
  version: string;
  /** Time limit of one call, in milliseconds (connection and body). */
  timeoutMs: number;
  /** Channel name used in error messages (`Instagram`). */
  label: string;
  fetch?: typeof fetch;
}

/** The secrets of one call. The token travels in the `Authorization` header, never in the URL. */
export interface GraphCredentials {
  accessToken: string;
  /** When given, every call carries `appsecret_proof` (required by apps that enforce it). */
  appSecret?: string;
}

/**
 * The one Graph API client of both Meta channels: versioned URLs, bearer token plus
 * `appsecret_proof`, JSON or multipart bodies, a time limit, and every failure mapped to a
 * {@link GraphApiError} (an UpstreamError with `retryable`).
 */
export class GraphClient {
  private readonly base: string;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly config: GraphClientConfig) {
    this.base = `${config.baseUrl.replace(/\/+$/, '')}/${config.version}/`;
    this.fetchImpl = config.fetch ?? fetch;
  }

  /** GET `/{version}/{path}` with the given query. */
  get<T>(path: string, credentials: GraphCredentials, query: Record<string, string> = {}): Promise<T> {
    return this.call<T>('GET', path, credentials, query);
  }

  /** POST a JSON body to `/{version}/{path}`. */
  postJson<T>(path: string, credentials: GraphCredentials, body: unknown): Promise<T> {
    return this.call<T>('POST', path, credentials, {}, { body: JSON.stringify(body), contentType: 'application/json' });
  }

  /** POST a multipart form to `/{version}/{path}` (fetch writes the boundary). */
  postForm<T>(path: string, credentials: GraphCredentials, form: FormData): Promise<T> {
    return this.call<T>('POST', path, credentials, {}, { body: form });
  }

  private async call<T>(
    method: 'GET' | 'POST',
    path: string,
    credentials: GraphCredentials,
    query: Record<string, string>,
    payload?: { body: string | FormData; contentType?: string },
  ): Promise<T> {
    const url = new URL(path.replace(/^\/+/, ''), this.base);
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    if (credentials.appSecret) url.searchParams.set('appsecret_proof', appSecretProof(credentials.accessToken, credentials.appSecret));
    const headers: Record<string, string> = { authorization: `Bearer ${credentials.accessToken}`, accept: 'application/json' };
    if (payload?.contentType) headers['content-type'] = payload.contentType;

    let status: number;
    let text: string;
    try {
      const response = await this.fetchImpl(url, {
        method, headers, body: payload?.body, signal: AbortSignal.timeout(this.config.timeoutMs),
      });
      status = response.status;
      text = await response.text();
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      throw graphNetworkError(this.config.label, timedOut ? `no answer within ${this.config.timeoutMs} ms` : causeOf(err));
    }

    let body: unknown;
    try {
      body = text === '' ? {} : JSON.parse(text);
    } catch {
      if (status >= 200 && status < 300) {
        throw new GraphApiError(`${this.config.label} Graph API answered HTTP ${status} without JSON`, {
          kind: 'other', httpStatus: status, message: 'answer is not JSON',
        });
      }
      body = {};
    }
    if (status < 200 || status >= 300 || (body && typeof body === 'object' && 'error' in body)) {
      throw graphErrorFromAnswer(this.config.label, status, body);
    }
    return body as T;
  }
}

/** HMAC-SHA256 of the access token keyed by the app secret, hex (Graph's `appsecret_proof`). */
export function appSecretProof(accessToken: string, appSecret: string): string {
  return createHmac('sha256', appSecret).update(accessToken).digest('hex');
}

/** The innermost message of a fetch failure (`ECONNREFUSED …` rather than `fetch failed`). */
function causeOf(err: unknown): string {
  let current: unknown = err;
  let message = 'request failed';
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    message = current.message || message;
    current = (current as { cause?: unknown }).cause;
  }
  return message;
}
