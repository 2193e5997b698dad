import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { expectError } from '../support/api-assertions.js';
import { startWithPhones, type Phone } from '../support/conversation.js';
import type { TestServer } from '../support/test-server.js';

/** Sends `chunks` as one request body, each chunk written separately; answers status and decoded JSON. */
function send(url: string, path: string, headers: Record<string, string | number>, chunks: Buffer[]): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method: 'POST', headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(Buffer.concat(parts).toString('utf8')) }));
    });
    req.on('error', reject);
    const write = (i: number): void => {
      if (i === chunks.length) {
        req.end();
        return;
      }
      req.write(chunks[i]);
      // Separate writes, each flushed before the next: the server sees them as separate chunks.
      setTimeout(() => write(i + 1), 5);
    };
    write(0);
  });
}

// Raw HTTP throughout: these tests are about how bodies travel, which the typed client never varies.
describe('request bodies', () => {
  let t: TestServer;
  let alice: Phone;
  const to = '5511950000002';

  before(async () => {
    ({ t, phones: { alice } } = await startWithPhones({ alice: '5511950000001', bob: to }));
  });
  after(async () => {
    await t.stop();
  });

  const path = () => `/${alice.key}/message/text`;
  const sent = async () => (await t.client(alice.key).call('listChatMessages', { params: { jid: to }, query: { limit: 100 } }));

  it('reads a body split across packets, even inside a multi-byte character', async () => {
    const text = 'olá 👋 mundo';
    const body = Buffer.from(JSON.stringify({ to, text }));
    const cut = body.indexOf(Buffer.from('👋')) + 2;
    const res = await send(t.url, path(), { 'content-type': 'application/json', 'content-length': body.length }, [body.subarray(0, cut), body.subarray(cut)]);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.message.extendedTextMessage?.text ?? res.body.data.message.conversation, text);
  });

  it('reads chunked, gzip-compressed and +json bodies', async () => {
    const body = Buffer.from(JSON.stringify({ to, text: 'chunked' }));
    const chunked = await send(t.url, path(), { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, [body.subarray(0, 7), body.subarray(7)]);
    assert.equal(chunked.status, 200, JSON.stringify(chunked.body));
    const zipped = gzipSync(Buffer.from(JSON.stringify({ to, text: 'zipped' })));
    const gzip = await send(t.url, path(), { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': zipped.length }, [zipped]);
    assert.equal(gzip.status, 200, JSON.stringify(gzip.body));
    const vendor = Buffer.from(JSON.stringify({ to, text: 'vendor type' }));
    const plus = await send(t.url, path(), { 'content-type': 'application/vnd.parley+json; charset=UTF-8', 'content-length': vendor.length }, [vendor]);
    assert.equal(plus.status, 200, JSON.stringify(plus.body));
    const texts = (await sent()).data.map((m: any) => m.message.conversation ?? m.message.extendedTextMessage?.text);
    for (const text of ['chunked', 'zipped', 'vendor type']) assert.ok(texts.includes(text), `${text} stored`);
  });

  it('an empty JSON body reads as {} and is validated as such', async () => {
    const res = await send(t.url, path(), { 'content-type': 'application/json', 'content-length': 0 }, []);
    expectError(res, 400, 'validation_failed', /body\.to is required/);
  });

  it('a body shorter than its Content-Length is refused without reaching a handler', async () => {
    const before = (await sent()).total;
    const body = Buffer.from(JSON.stringify({ to, text: 'never' }));
    // The client closes its side after a short body: the server must not store or answer a half request as a send.
    await new Promise<void>((resolve) => {
      const req = httpRequest(`${t.url}${path()}`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length + 10 } });
      req.on('error', () => resolve());
      req.on('response', (res) => {
        assert.ok(res.statusCode! >= 400);
        res.resume();
        resolve();
      });
      req.write(body, () => setTimeout(() => req.destroy(), 20));
    });
    assert.equal((await sent()).total, before);
  });
});
