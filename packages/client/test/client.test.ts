import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ParleyApiError, ParleyClient, operations, type OperationResponse } from '../src/index.js';

interface Seen {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
}

/** A fetch that records requests and answers what the test says. */
function fakeFetch(answer: (seen: Seen) => Response = () => Response.json({ status: 200 })) {
  const seen: Seen[] = [];
  const fetch = async (input: string, init: RequestInit): Promise<Response> => {
    const entry = { url: input, method: String(init.method), headers: { ...(init.headers as Record<string, string>) }, body: init.body as string | undefined };
    seen.push(entry);
    return answer(entry);
  };
  return { fetch, seen };
}

describe('ParleyClient requests', () => {
  it('builds method, URL, JSON body and headers of an instance operation; the answer is the parsed JSON', async () => {
    const record = { status: 200, data: { key: { remoteJid: '5511999990000@s.whatsapp.net', fromMe: true, id: '3EB0AA' }, message: {}, messageTimestamp: '1', status: 'PENDING' } };
    const { fetch, seen } = fakeFetch(() => Response.json(record));
    const client = new ParleyClient({ baseUrl: 'http://parley.test:8080/', fetch, adminToken: 'admin-secret-token' });
    const answer = await client.instance('KEY_abc-123').call('sendText', { body: { to: '5511999990000', text: 'hi' } });
    assert.deepEqual(answer, record);
    const status: 'PENDING' | 'SERVER_ACK' | 'DELIVERY_ACK' | 'READ' | 'PLAYED' | 'ERROR' = answer.data.status;
    assert.equal(status, 'PENDING');
    assert.deepEqual(seen, [{
      url: 'http://parley.test:8080/KEY_abc-123/message/text', method: 'POST',
      headers: { accept: 'application/json, */*;q=0.8', 'content-type': 'application/json' }, body: '{"to":"5511999990000","text":"hi"}',
    }]);
  });

  it('encodes path parameters and serializes the query, dropping absent members', async () => {
    const { fetch, seen } = fakeFetch(() => Response.json({ status: 200, data: [], page: 2, limit: 5, total: 0 }));
    const client = new ParleyClient({ baseUrl: 'http://h', fetch });
    await client.instance('k').call('listChatMessages', { params: { jid: '5511999990000@s.whatsapp.net' }, query: { page: 2, limit: 5 } });
    await client.instance('k').call('updateInstanceFlags', { query: { saveMedia: true, markMessageRead: undefined } });
    await client.call('listChatMessages', { params: { key: 'a/b', jid: '120363@g.us' } });
    assert.deepEqual(seen.map((s) => `${s.method} ${s.url}`), [
      'GET http://h/k/chat/5511999990000%40s.whatsapp.net/messages?page=2&limit=5',
      'PATCH http://h/k/instance?saveMedia=true',
      'GET http://h/a%2Fb/chat/120363%40g.us/messages',
    ]);
    assert.equal(seen[0]!.body, undefined);
    assert.equal(seen[0]!.headers['content-type'], undefined);
  });

  it('sends the admin token on admin operations only', async () => {
    const { fetch, seen } = fakeFetch(() => Response.json({ status: 200, data: [] }));
    const client = new ParleyClient({ baseUrl: 'http://h', fetch, adminToken: 'admin-secret-token', key: 'inst' });
    await client.call('adminListInstances');
    await client.call('adminGetInstance', { params: { key: 'other-instance' } });
    await client.call('getInstance');
    await client.call('healthz');
    assert.deepEqual(seen.map((s) => [s.url, s.headers.authorization]), [
      ['http://h/admin/instances', 'Bearer admin-secret-token'],
      ['http://h/admin/instances/other-instance', 'Bearer admin-secret-token'],
      ['http://h/inst/instance', undefined],
      ['http://h/healthz', undefined],
    ]);
  });

  it('uses the configured key, an explicit params.key over it, and refuses a keyed call without any key before sending', async () => {
    const { fetch, seen } = fakeFetch();
    await new ParleyClient({ baseUrl: 'http://h', fetch, key: 'default' }).call('getInstance', { params: { key: 'explicit' } });
    await new ParleyClient({ baseUrl: 'http://h', fetch, key: 'default' }).instance().call('getInstance');
    assert.deepEqual(seen.map((s) => s.url), ['http://h/explicit/instance', 'http://h/default/instance']);
    const bare = new ParleyClient({ baseUrl: 'http://h', fetch });
    await assert.rejects(bare.call('getInstance'), { name: 'TypeError', message: 'getInstance needs an instance key: pass params.key, use client.instance(key), or set `key` in the client options' });
    assert.throws(() => bare.instance(), { name: 'TypeError', message: 'an instance key is required: pass it, or set `key` in the client options' });
    await assert.rejects(bare.call('adminGetInstance', { params: { key: '' } }), { message: 'adminGetInstance needs the path parameter key' });
    assert.equal(seen.length, 2);
  });

  it('passes extra headers and an abort signal', async () => {
    const { fetch, seen } = fakeFetch();
    const client = new ParleyClient({ baseUrl: 'http://h', fetch, headers: { 'x-trace': 'a' } });
    await client.call('healthz', { headers: { 'x-request': 'b' } });
    assert.equal(seen[0]!.headers['x-trace'], 'a');
    assert.equal(seen[0]!.headers['x-request'], 'b');
    const controller = new AbortController();
    controller.abort();
    const aborting = new ParleyClient({ baseUrl: 'http://h', fetch: (input, init) => globalThis.fetch(input, init) });
    await assert.rejects(aborting.call('healthz', { signal: controller.signal }), { name: 'AbortError' });
  });

  it('url() answers the address of an operation', () => {
    const client = new ParleyClient({ baseUrl: 'http://h/base/', key: 'k' });
    assert.equal(client.url('getMessageMedia', { params: { messageId: '3EB0 1' }, query: { format: 'binary' } }), 'http://h/base/k/message/3EB0%201/media?format=binary');
    assert.equal(client.instance('z').url('listChats'), 'http://h/base/z/chat');
  });
});

describe('ParleyClient answers', () => {
  it('throws ParleyApiError with status, code, message and details of the error model', async () => {
    const details = { fields: [{ field: 'body.to', message: 'body.to is required' }] };
    const { fetch } = fakeFetch(() => Response.json({ status: 400, error: { code: 'validation_failed', message: 'body.to is required', details } }, { status: 400 }));
    const client = new ParleyClient({ baseUrl: 'http://h', fetch, key: 'k' });
    await assert.rejects(client.call('sendText', { body: { to: '', text: 'x' } }), (err: unknown) => {
      assert.ok(err instanceof ParleyApiError);
      assert.ok(err instanceof Error);
      assert.equal(err.name, 'ParleyApiError');
      assert.equal(err.status, 400);
      assert.equal(err.code, 'validation_failed');
      assert.equal(err.message, 'body.to is required');
      assert.deepEqual(err.details, details);
      return true;
    });
  });

  it('reports a non-JSON error answer as http_error with its text', async () => {
    const { fetch } = fakeFetch(() => new Response('<html>Bad gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } }));
    await assert.rejects(new ParleyClient({ baseUrl: 'http://h', fetch }).call('healthz'), {
      name: 'ParleyApiError', status: 502, code: 'http_error', message: 'HTTP 502: <html>Bad gateway</html>',
    });
    const broken = fakeFetch(() => new Response('{"status":', { status: 500, headers: { 'content-type': 'application/json' } }));
    await assert.rejects(new ParleyClient({ baseUrl: 'http://h', fetch: broken.fetch }).call('healthz'), { status: 500, code: 'http_error', message: 'HTTP 500: {"status":' });
  });

  it('answers binary content as a Uint8Array', async () => {
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47]);
    const { fetch } = fakeFetch(() => new Response(bytes, { headers: { 'content-type': 'image/png' } }));
    const media: OperationResponse<'getMessageMedia'> = await new ParleyClient({ baseUrl: 'http://h', fetch }).instance('k').call('getMessageMedia', { params: { messageId: 'm' } });
    assert.ok(media instanceof Uint8Array);
    assert.deepEqual([...media], [0x89, 0x50, 0x4e, 0x47]);
  });

  it('answers the JSON form of a bytes-or-JSON operation as JSON', async () => {
    const { fetch } = fakeFetch(() => Response.json({ status: 200, data: 'data:image/png;base64,iVBO' }));
    const media = await new ParleyClient({ baseUrl: 'http://h', fetch }).instance('k').call('getMessageMedia', { params: { messageId: 'm' }, query: { format: 'json' } });
    assert.ok(!(media instanceof Uint8Array));
    assert.equal(media.data, 'data:image/png;base64,iVBO');
  });

  it('answers text operations as strings, even when served as JSON; the OpenAPI document as the JSON it is', async () => {
    const json = (seen: Seen) => /\/(openapi\.json|instagram\/webhook)/.test(seen.url);
    const { fetch } = fakeFetch((seen) => new Response(json(seen) ? (seen.url.endsWith('/openapi.json') ? '{"openapi":"3.1.0"}' : '"1158201444"') : '<!doctype html>', {
      headers: { 'content-type': json(seen) ? 'application/json; charset=utf-8' : 'text/html; charset=utf-8' },
    }));
    const client = new ParleyClient({ baseUrl: 'http://h', fetch });
    const spec = await client.call('openapi');
    assert.deepEqual(spec, { openapi: '3.1.0' });
    const challenge: string = await client.call('instagram_get_webhook');
    assert.equal(challenge, '"1158201444"');
    assert.equal(await client.call('docs'), '<!doctype html>');
  });
});

describe('ParleyClient typing', () => {
  it('rejects wrong inputs at compile time', async () => {
    const { fetch } = fakeFetch();
    const client = new ParleyClient({ baseUrl: 'http://h', fetch, key: 'k' });
    const instance = client.instance();
    // These lines are type-checked by the build: each one must be a compile error.
    // @ts-expect-error unknown operation
    await assert.rejects(client.call('sendTelegram', {}), TypeError);
    // @ts-expect-error `text` is required
    await instance.call('sendText', { body: { to: '5511999990000' } });
    // @ts-expect-error `to` must be a string
    await instance.call('sendText', { body: { to: 5511999990000, text: 'x' } });
    // @ts-expect-error bodies are closed objects
    await instance.call('sendText', { body: { to: '1', text: 'x', colour: 'red' } });
    // @ts-expect-error the body is required
    await instance.call('sendText');
    // @ts-expect-error admin operations are not instance operations
    assert.throws(() => instance.call('adminListInstances'), TypeError);
    // @ts-expect-error the chat JID is a required path parameter
    await assert.rejects(instance.call('listChatMessages', { query: { page: 1 } }), { message: 'listChatMessages needs the path parameter jid' });
    // @ts-expect-error query members have their schema types
    await instance.call('updateInstanceFlags', { query: { saveMedia: 'yes' } });
    assert.deepEqual(Object.keys(operations).length > 20, true);
  });
});
