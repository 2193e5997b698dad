import { apiErrorOf, ParleyApiError } from './parley-api-error.js';
import type { FetchLike } from './fetch-like.js';

/** One event of a Parley event stream. */
export interface StreamedEvent<T = unknown> {
  /** The event id (resume position); absent on control events such as `stream.gap`. */
  id?: string;
  /** The event kind: `message`, `message.status`, `connection`, `qrcode`, …, or `stream.gap`. */
  event: string;
  /** The parsed JSON payload (admin streams: `{instance, name, format, payload}`). */
  data: T;
}

/** Options of {@link streamEvents}. */
export interface StreamEventsOptions {
  /** Base URL of the server, e.g. `https://parley.example.com`. */
  baseUrl: string;
  /** Instance key: streams `GET /{key}/events`. Without it, `adminToken` streams `GET /admin/events`. */
  key?: string;
  /** Admin token for the admin stream (sent as `Authorization: Bearer …`, never in the URL). */
  adminToken?: string;
  /** Start after this event id (sent as `Last-Event-ID`); from now on when absent. */
  after?: string;
  /** A registered webhook format (`native`, `meta`); the instance's own by default. */
  format?: string;
  /** Ends the stream (the iterator returns) when aborted. */
  signal?: AbortSignal;
  /** A `fetch` implementation; the global one by default. */
  fetch?: FetchLike;
  /** First reconnection delay in ms (default 1000; the server's `retry:` field replaces it); doubled per failed attempt up to `maxDelayMs`. */
  delayMs?: number;
  /** Longest reconnection delay (default 30000). */
  maxDelayMs?: number;
  /** Consecutive failed connection attempts before the iterator throws the last error (default 10). */
  maxAttempts?: number;
  /** Extra request headers. */
  headers?: Record<string, string>;
}

/** Answers that retrying cannot fix: bad request, credentials, unknown instance. */
const FINAL = new Set([400, 401, 403, 404]);

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** One SSE block's fields, as the HTML standard's event-stream parser reads them. */
interface Block {
  id?: string;
  event?: string;
  data: string[];
  retry?: number;
}

function parseLine(line: string, block: Block): void {
  if (line === '' || line.startsWith(':')) return;
  const colon = line.indexOf(':');
  const field = colon < 0 ? line : line.slice(0, colon);
  let value = colon < 0 ? '' : line.slice(colon + 1);
  if (value.startsWith(' ')) value = value.slice(1);
  if (field === 'data') block.data.push(value);
  else if (field === 'event') block.event = value;
  else if (field === 'id' && !value.includes('\0')) block.id = value;
  else if (field === 'retry' && /^\d+$/.test(value)) block.retry = Number(value);
}

/**
 * Parley's live event stream (`GET /{key}/events`, or `GET /admin/events` with the admin token) as
 * an async iterable of `{id, event, data}`. It reconnects by itself after a dropped connection or a
 * server restart, sending `Last-Event-ID` with the last id it yielded, so no event is missed or
 * repeated within the server's retention; consecutive failures back off (doubling up to
 * `maxDelayMs`) and after `maxAttempts` the iterator throws. Errors retrying cannot fix (400, 401,
 * 404) throw a {@link ParleyApiError} at once. Abort `signal` to stop. Needs only `fetch` and
 * streams: Node 18+ and browsers.
 */
export async function* streamEvents<T = unknown>(options: StreamEventsOptions): AsyncGenerator<StreamedEvent<T>, void, undefined> {
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const { signal } = options;
  const maxDelay = options.maxDelayMs ?? 30_000;
  const maxAttempts = options.maxAttempts ?? 10;
  let delay = options.delayMs ?? 1000;
  let lastId = options.after;
  let failures = 0;
  const base = options.baseUrl.replace(/\/+$/, '');
  const path = options.key !== undefined ? `/${encodeURIComponent(options.key)}/events` : '/admin/events';
  const url = `${base}${path}${options.format ? `?format=${encodeURIComponent(options.format)}` : ''}`;
  while (!signal?.aborted) {
    try {
      const headers: Record<string, string> = { Accept: 'text/event-stream', ...options.headers };
      if (lastId) headers['Last-Event-ID'] = lastId;
      if (options.key === undefined && options.adminToken) headers.Authorization = `Bearer ${options.adminToken}`;
      const res = await doFetch(url, { headers, ...(signal ? { signal } : {}), cache: 'no-store' });
      if (!res.ok || !res.body) {
        const text = await res.text().catch(() => '');
        let body: unknown = null;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: the error keeps the text
        }
        throw apiErrorOf(res.status, body, text);
      }
      failures = 0;
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let rest = '';
      let block: Block = { data: [] };
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        rest += value;
        const lines = rest.split(/\r\n|\r|\n/);
        rest = lines.pop() ?? '';
        for (const line of lines) {
          if (line !== '') {
            parseLine(line, block);
            continue;
          }
          if (block.retry !== undefined) delay = block.retry;
          if (block.data.length > 0) {
            const event: StreamedEvent<T> = { event: block.event ?? 'message', data: JSON.parse(block.data.join('\n')) as T };
            if (block.id !== undefined) {
              event.id = block.id;
              lastId = block.id;
            }
            yield event;
          }
          block = { data: [] };
        }
      }
    } catch (err) {
      if (signal?.aborted) return;
      if (err instanceof ParleyApiError && FINAL.has(err.status)) throw err;
      if (++failures >= maxAttempts) throw err;
    }
    await sleep(failures > 0 ? Math.min(maxDelay, delay * 2 ** (failures - 1)) : delay, signal);
  }
}
