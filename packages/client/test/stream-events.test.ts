import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ParleyApiError, ParleyClient, streamEvents, type StreamedEvent } from '../src/index.js';

/** A streamed answer whose body arrives in the given chunks. */
function sse(chunks: string[]): Response {
  const encoder = new TextEncoder();
  return new Response(new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  }), { headers: { 'content-type': 'text/event-stream' } });
}

/** A fetch answering each call with the next answer, recording the URL and headers it was given. */
function scripted(answers: (() => Response | Promise<Response>)[]) {
  const calls: { url: string; headers: Record<string, string> }[] = [];
  const fetch = async (url: string, init: RequestInit) => {
    calls.push({ url, headers: { ...(init.headers as Record<string, string>) } });
    const next = answers.shift();
    if (!next) throw new TypeError('fetch failed');
    return next();
  };
  return { fetch, calls };
}

async function take<T>(iterable: AsyncIterable<T>, count: number): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) {
    out.push(item);
    if (out.length === count) break;
  }
  return out;
}

describe('streamEvents', () => {
  it('parses frames split anywhere (CRLF too), skips comments, and reconnects with Last-Event-ID after the stream ends', async () => {
    const { fetch, calls } = scripted([
      () => sse(['retry: 5\n: connected\n\nid: 01A\nev', 'ent: message\ndata: {"n":', '1}\n\n: heartbeat\n\n', 'id: 01B\r\nevent: qrcode\r\ndata: {"n":2}\r\n\r\n']),
      () => sse(['event: stream.gap\ndata: {"after":"01B"}\n\nid: 01C\nevent: message\ndata: {"n":3}\n\n']),
    ]);
    const got = await take(streamEvents({ baseUrl: 'http://h/', key: 'k/ey', format: 'meta', fetch, after: '019' }), 4);
    assert.deepEqual(got, [
      { id: '01A', event: 'message', data: { n: 1 } },
      { id: '01B', event: 'qrcode', data: { n: 2 } },
      { event: 'stream.gap', data: { after: '01B' } },
      { id: '01C', event: 'message', data: { n: 3 } },
    ] satisfies StreamedEvent[]);
    assert.deepEqual(calls.map((c) => [c.url, c.headers['Last-Event-ID'], c.headers.Authorization]), [
      ['http://h/k%2Fey/events?format=meta', '019', undefined],
      ['http://h/k%2Fey/events?format=meta', '01B', undefined],
    ]);
  });

  it('sends the admin token as a bearer header on the admin stream, never in the URL', async () => {
    const { fetch, calls } = scripted([() => sse(['id: 01A\nevent: message\ndata: {}\n\n'])]);
    await take(streamEvents({ baseUrl: 'http://h', adminToken: 'admin-secret', fetch }), 1);
    assert.deepEqual([calls[0]!.url, calls[0]!.headers.Authorization, calls[0]!.headers['Last-Event-ID']], ['http://h/admin/events', 'Bearer admin-secret', undefined]);
  });

  it('ParleyClient.events streams the admin stream with the client\'s token; InstanceClient.events its instance\'s, without it', async () => {
    const { fetch, calls } = scripted([() => sse(['id: 01A\nevent: message\ndata: {}\n\n']), () => sse(['id: 01B\nevent: message\ndata: {}\n\n'])]);
    const client = new ParleyClient({ baseUrl: 'http://h/', adminToken: 'admin-secret', fetch, headers: { 'x-trace': '1' } });
    await take(client.events({ after: '019' }), 1);
    await take(client.instance('k1').events({ format: 'meta' }), 1);
    assert.deepEqual(calls.map((c) => [c.url, c.headers.Authorization, c.headers['Last-Event-ID'], c.headers['x-trace']]), [
      ['http://h/admin/events', 'Bearer admin-secret', '019', '1'],
      ['http://h/k1/events?format=meta', undefined, undefined, '1'],
    ]);
  });

  it('throws the API error at once on 401 and 404; retries 429 and network errors, then gives up after maxAttempts', async () => {
    const unauthorized = scripted([() => Response.json({ status: 401, error: { code: 'unauthorized', message: 'invalid admin token' } }, { status: 401 })]);
    await assert.rejects(take(streamEvents({ baseUrl: 'http://h', fetch: unauthorized.fetch }), 1), (err: unknown) => err instanceof ParleyApiError && err.code === 'unauthorized');
    assert.equal(unauthorized.calls.length, 1);
    const busy = scripted([
      () => Response.json({ status: 429, error: { code: 'too_many_streams', message: 'limit' } }, { status: 429 }),
      () => { throw new TypeError('fetch failed'); },
      () => sse(['id: 01A\nevent: message\ndata: {}\n\n']),
    ]);
    assert.deepEqual(await take(streamEvents({ baseUrl: 'http://h', key: 'k', fetch: busy.fetch, delayMs: 1 }), 1), [{ id: '01A', event: 'message', data: {} }]);
    const down = scripted([]);
    await assert.rejects(take(streamEvents({ baseUrl: 'http://h', key: 'k', fetch: down.fetch, delayMs: 1, maxAttempts: 3 }), 1), /fetch failed/);
    assert.equal(down.calls.length, 3);
  });

  it('ends when its signal aborts, also while waiting to reconnect', async () => {
    const stop = new AbortController();
    const { fetch } = scripted([]);
    const started = Date.now();
    setTimeout(() => stop.abort(), 30);
    assert.deepEqual(await take(streamEvents({ baseUrl: 'http://h', key: 'k', fetch, delayMs: 10_000, signal: stop.signal }), 1), []);
    assert.ok(Date.now() - started < 5000);
  });
});
