import { operations, type Operations } from './generated/operations.js';
import { apiErrorOf } from './parley-api-error.js';
import type { FetchLike } from './fetch-like.js';
import { streamEvents, type StreamedEvent, type StreamEventsOptions } from './stream-events.js';

/** Options of {@link ParleyClient.events}: the stream's own, the connection taken from the client. */
export type EventsOptions = Omit<StreamEventsOptions, 'baseUrl' | 'adminToken' | 'fetch' | 'key'>;

/** Name of an operation: its OpenAPI `operationId`. */
export type OperationId = keyof Operations;

/** Operations whose `{key}` is the caller's instance key (callable through {@link InstanceClient}). */
export type InstanceOperationId = { [K in OperationId]: Operations[K]['keyed'] extends true ? K : never }[OperationId];

/** The 200 answer of an operation: parsed JSON, text, or bytes. */
export type OperationResponse<Id extends OperationId> = Operations[Id]['response'];

/** Per-call options besides the operation's inputs. */
export interface RequestOptions {
  /** Extra request headers. */
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /**
   * Sent as the `Idempotency-Key` header, on operations that create something (the others throw a
   * TypeError): retrying the call with the same key and the same inputs within 24 h answers the first
   * answer again and does nothing new. Use a new random key (a UUID) per intended operation.
   */
  idempotencyKey?: string;
}

/** `{ [Name]: T }`, optional when T has no required member, absent when the operation has no such input. */
type Slot<Name extends string, T> = [T] extends [undefined]
  ? { [K in Name]?: undefined }
  : {} extends T
    ? { [K in Name]?: T }
    : { [K in Name]: T };

/** The path params a caller gives: `key` may be left to the client's configured key. */
type CallerParams<Id extends OperationId> = Operations[Id]['keyed'] extends true
  ? Omit<Operations[Id]['params'] & {}, 'key'> & { key?: string }
  : Operations[Id]['params'];

/** Inputs of {@link ParleyClient.call}. */
export type CallArgs<Id extends OperationId> = Slot<'params', CallerParams<Id>> & Slot<'query', Operations[Id]['query']> & Slot<'body', Operations[Id]['body']> & RequestOptions;

/** Inputs of {@link InstanceClient.call}: `{key}` is filled in. */
export type InstanceCallArgs<Id extends InstanceOperationId> = Slot<'params', Omit<Operations[Id]['params'] & {}, 'key'>> & Slot<'query', Operations[Id]['query']> & Slot<'body', Operations[Id]['body']> & RequestOptions;

/** Makes the inputs argument optional when nothing in it is required. */
type ArgsTuple<A> = {} extends A ? [args?: A] : [args: A];

/** Options of {@link ParleyClient}. */
export interface ParleyClientOptions {
  /** Base URL of the server, e.g. `https://parley.example.com`. */
  baseUrl: string;
  /** Default instance key, used for `{key}` when a call does not give `params.key`. */
  key?: string;
  /** Admin token, sent as `Authorization: Bearer …` on admin operations only. */
  adminToken?: string;
  /** A `fetch` implementation (tests, proxies, older runtimes). */
  fetch?: FetchLike;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

interface CallInput {
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  idempotencyKey?: string;
}

function isJson(contentType: string): boolean {
  return /^application\/(?:[\w.+-]*\+)?json\b/i.test(contentType);
}

/**
 * A typed client of the Parley REST API, generated from the server's own route schemas. Works in
 * Node (18+) and browsers: it only needs `fetch`.
 *
 * ```ts
 * const client = new ParleyClient({ baseUrl: 'http://localhost:8080', adminToken });
 * const { data } = await client.call('adminCreateInstance', { body: { channel: 'sandbox' } });
 * await client.instance(data.key).call('sendText', { body: { to: '5511999990000', text: 'hi' } });
 * ```
 *
 * Non-2xx answers throw {@link ParleyApiError}; binary answers resolve to a `Uint8Array`.
 */
export class ParleyClient {
  readonly baseUrl: string;
  readonly key?: string;
  private readonly adminToken?: string;
  private readonly fetchImpl: FetchLike;
  private readonly headers: Record<string, string>;

  constructor(options: ParleyClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.key = options.key;
    this.adminToken = options.adminToken;
    // Called through a closure: browsers require `fetch` to be invoked on the global object.
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.headers = { ...(options.headers ?? {}) };
  }

  /** Calls an operation by its operationId. */
  call<Id extends OperationId>(id: Id, ...args: ArgsTuple<CallArgs<Id>>): Promise<OperationResponse<Id>> {
    return this.send(id, (args[0] ?? {}) as CallInput) as Promise<OperationResponse<Id>>;
  }

  /** A client scoped to one instance: `{key}` is filled with `key` (default: the configured key). */
  instance(key: string | undefined = this.key): InstanceClient {
    if (!key) throw new TypeError('an instance key is required: pass it, or set `key` in the client options');
    return new InstanceClient(this, key);
  }

  /**
   * The live event stream (docs/events.md) over {@link streamEvents}: instance `key`'s events, or
   * every instance's (`GET /admin/events`, with the client's admin token) when no key is given.
   */
  events<T = unknown>(options: EventsOptions & { key?: string } = {}): AsyncGenerator<StreamedEvent<T>, void, undefined> {
    return streamEvents<T>({
      baseUrl: this.baseUrl, fetch: this.fetchImpl, ...(this.adminToken ? { adminToken: this.adminToken } : {}), ...options,
      headers: { ...this.headers, ...(options.headers ?? {}) },
    });
  }

  /** The URL of an operation with its params and query filled in. */
  url(id: OperationId, input: { params?: Record<string, unknown>; query?: Record<string, unknown> } = {}): string {
    const op = operations[id];
    const path = op.path.replace(/\{([^}]+)\}/g, (_match, name: string) => {
      const value = name === 'key' && op.keyed ? input.params?.key ?? this.key : input.params?.[name];
      if (value === undefined || value === null || value === '') {
        throw new TypeError(name === 'key' && op.keyed
          ? `${id} needs an instance key: pass params.key, use client.instance(key), or set \`key\` in the client options`
          : `${id} needs the path parameter ${name}`);
      }
      return encodeURIComponent(String(value));
    });
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(input.query ?? {})) {
      if (value !== undefined && value !== null) search.append(name, String(value));
    }
    const query = search.toString();
    return `${this.baseUrl}${path}${query ? `?${query}` : ''}`;
  }

  private async send(id: OperationId, input: CallInput): Promise<unknown> {
    const op = operations[id];
    if (!op) throw new TypeError(`unknown operation ${String(id)}`);
    const headers: Record<string, string> = { accept: 'application/json, */*;q=0.8', ...this.headers, ...(input.headers ?? {}) };
    const init: RequestInit = { method: op.method, headers, signal: input.signal };
    if (input.body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(input.body);
    }
    if (op.auth === 'admin' && this.adminToken) headers.authorization = `Bearer ${this.adminToken}`;
    if (input.idempotencyKey !== undefined) {
      if (!op.idempotent) throw new TypeError(`${id} takes no idempotency key: it creates nothing`);
      headers['idempotency-key'] = input.idempotencyKey;
    }
    const res = await this.fetchImpl(this.url(id, input), init);
    const type = res.headers.get('content-type') ?? '';
    if (!res.ok) {
      const text = await res.text();
      let body: unknown = null;
      if (isJson(type)) {
        try {
          body = JSON.parse(text);
        } catch {
          // not the error model: reported with the raw text
        }
      }
      throw apiErrorOf(res.status, body, body ? '' : text);
    }
    if (op.text) return res.text();
    if (isJson(type)) return res.json();
    if (/^text\//i.test(type)) return res.text();
    return new Uint8Array(await res.arrayBuffer());
  }
}

/** {@link ParleyClient} bound to one instance key. */
export class InstanceClient {
  constructor(
    private readonly client: ParleyClient,
    readonly key: string,
  ) {}

  /** Calls an instance operation; `{key}` is this client's key. */
  call<Id extends InstanceOperationId>(id: Id, ...args: ArgsTuple<InstanceCallArgs<Id>>): Promise<OperationResponse<Id>> {
    const input = (args[0] ?? {}) as CallInput;
    const op = operations[id];
    if (!op?.keyed) throw new TypeError(`${String(id)} is not an instance operation`);
    return (this.client.call as (id: OperationId, args: CallInput) => Promise<OperationResponse<Id>>)(id, { ...input, params: { ...(input.params ?? {}), key: this.key } });
  }

  /** This instance's live event stream (`GET /{key}/events`, docs/events.md). */
  events<T = unknown>(options: EventsOptions = {}): AsyncGenerator<StreamedEvent<T>, void, undefined> {
    return this.client.events<T>({ ...options, key: this.key });
  }

  /** The URL of an instance operation. */
  url(id: InstanceOperationId, input: { params?: Record<string, unknown>; query?: Record<string, unknown> } = {}): string {
    return this.client.url(id, { ...input, params: { ...(input.params ?? {}), key: this.key } });
  }
}
