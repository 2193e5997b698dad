import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { streamEvents, ParleyApiError, type StreamedEvent } from '@parley/client';
import { ulidFloor } from '@parley/core';
import { deleteKeys } from '@parley/storage-redis/testing';
import { serviceUrlOrSkip, TcpProxy } from '@parley/testkit';
import { phone, type Phone } from '../support/conversation.js';
import { handledAfter, sendTexts, streamStorages, textOf } from '../support/event-streams.js';
import { SseClient } from '../support/sse-client.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const redisUrl = serviceUrlOrSkip('REDIS_URL', 'event streams on Redis storage');
const prefix = `parley-streams-${process.pid}-${Date.now()}:`;
const texts = (from: number, count: number) => Array.from({ length: count }, (_, i) => `text ${from + i}`);
const messageTexts = (frames: { event?: string; data?: string }[]) => frames.filter((f) => f.event === 'message').map((f) => textOf(JSON.parse(f.data!)));

after(async () => {
  if (redisUrl) await deleteKeys(redisUrl, prefix);
});

for (const storage of streamStorages(redisUrl, prefix)) {
  describe(`event streams over HTTP (${storage.name} storage)`, () => {
    let t: TestServer;
    let alice: Phone;
    let bob: Phone;
    before(async () => {
      t = await startTestServer({ plugins: storage.plugins, config: { defaultChannel: 'sandbox' } });
      alice = await phone(t, 'alice', '5511900000001');
      bob = await phone(t, 'bob', '5511900000002');
    });
    after(async () => {
      await t.stop();
    });

    it('a client that reconnects with Last-Event-ID gets every event it missed exactly once, then the live ones', async () => {
      const first = new SseClient(`${t.url}/${bob.key}/events`);
      await first.opened;
      assert.equal(first.status, 200);
      assert.equal(first.contentType, 'text/event-stream; charset=utf-8');
      await sendTexts(t, alice, bob, texts(1, 3));
      await t.waitFor(() => messageTexts(first.events).length === 3, 5000, 'the first client to get 3 messages');
      first.close();
      const lastSeen = first.events.at(-1)!.id!;

      // Missed while disconnected, then sent while the second client replays.
      await sendTexts(t, alice, bob, texts(4, 5));
      const second = new SseClient(`${t.url}/${bob.key}/events`, { 'Last-Event-ID': lastSeen });
      const racing = sendTexts(t, alice, bob, texts(9, 3));
      await second.opened;
      await racing;
      await t.waitFor(() => messageTexts(second.events).length === 8, 5000, 'the second client to get 8 messages');
      await t.settle();
      const ids = second.events.map((f) => f.id!);
      assert.deepEqual(ids, [...new Set(ids)].sort(), 'ids are unique and in order');
      assert.deepEqual(ids, handledAfter(t, bob.id, lastSeen), 'every event of bob after the position, none twice');
      assert.deepEqual(messageTexts(second.events), texts(4, 8));
      assert.deepEqual([...messageTexts(first.events), ...messageTexts(second.events)], texts(1, 11));
      // Each frame's data is the native webhook body of the event it names.
      for (const frame of second.events) {
        const body = JSON.parse(frame.data!);
        assert.equal(body.id, frame.id);
        assert.equal(body.type, frame.event);
        assert.equal(body.instance, bob.id);
      }
      second.close();
    });

    it('?after= resumes like Last-Event-ID, and the header wins over it; ?format=meta sends the meta bodies', async () => {
      const mark = t.events.at(-1)!.id;
      await sendTexts(t, alice, bob, ['after one', 'after two']);
      const viaQuery = new SseClient(`${t.url}/${bob.key}/events?after=${mark}&format=meta`);
      await t.waitFor(() => viaQuery.events.filter((f) => f.event === 'message').length === 2, 5000, 'two replayed messages');
      const metaTexts = viaQuery.events.filter((f) => f.event === 'message').map((f) => JSON.parse(f.data!).entry[0].changes[0].value.messages[0].text.body);
      assert.deepEqual(metaTexts, ['after one', 'after two']);
      viaQuery.close();
      const lastOfBob = handledAfter(t, bob.id, mark).at(-1)!;
      const both = new SseClient(`${t.url}/${bob.key}/events?after=${mark}`, { 'Last-Event-ID': lastOfBob });
      await both.opened;
      await sendTexts(t, alice, bob, ['after three']);
      await t.waitFor(() => both.events.some((f) => f.event === 'message'), 5000, 'the live message');
      assert.deepEqual(messageTexts(both.events), ['after three']);
      both.close();
    });

    it('signals a position older than the retention with stream.gap, then sends what the log still has', async () => {
      const old = ulidFloor(Date.now() - 86_400_000 - 60_000);
      const client = new SseClient(`${t.url}/${bob.key}/events`, { 'Last-Event-ID': old });
      await t.waitFor(() => client.events.length >= 3, 5000, 'the replay');
      assert.equal(client.frames[0]!.event, 'stream.gap');
      assert.equal(client.frames[0]!.id, undefined);
      assert.deepEqual(JSON.parse(client.frames[0]!.data!).after, old);
      assert.equal(JSON.parse(client.frames[0]!.data!).retentionSeconds, 86_400);
      client.close();
    });

    it('the admin stream carries every instance\'s events, each naming its instance; streamEvents reconnects through a cut with Last-Event-ID', async () => {
      const server = new URL(t.url);
      const proxy = new TcpProxy(server.hostname, Number(server.port));
      await proxy.start();
      const stop = new AbortController();
      const got: StreamedEvent<{ instance: string; name: string; format: string; payload: any }>[] = [];
      const start = t.events.at(-1)!.id;
      const reading = (async () => {
        for await (const e of streamEvents<{ instance: string; name: string; format: string; payload: any }>({
          baseUrl: `http://127.0.0.1:${proxy.port}`, adminToken: t.adminToken, after: start, signal: stop.signal, delayMs: 50, maxAttempts: 100,
        })) got.push(e);
      })();
      try {
        await sendTexts(t, alice, bob, ['admin one']);
        await t.waitFor(() => got.some((e) => e.event === 'message' && e.data.name === 'bob'), 5000, 'the first message');
        await proxy.cut();
        await sendTexts(t, alice, bob, ['admin two', 'admin three']);
        await proxy.restore();
        await sendTexts(t, bob, alice, ['admin four']);
        const expected = t.events.filter((e) => e.id > start && [alice.id, bob.id].includes(e.instance)).map((e) => e.id).sort();
        await t.waitFor(() => got.length >= expected.length, 10_000, 'every event after the cut');
        const ids = got.map((e) => e.id!);
        assert.deepEqual(ids, [...new Set(ids)].sort());
        assert.deepEqual(ids, expected);
        for (const e of got) {
          assert.equal(e.data.instance, e.data.payload.instance);
          assert.equal(e.data.name, e.data.instance === alice.id ? 'alice' : 'bob');
          assert.equal(e.data.format, 'native');
          assert.equal(e.data.payload.id, e.id);
        }
        assert.deepEqual(got.filter((e) => e.event === 'message' && e.data.name === 'bob' && !e.data.payload.data.message.fromMe).map((e) => textOf(e.data.payload)), ['admin one', 'admin two', 'admin three']);
      } finally {
        stop.abort();
        await reading;
        await proxy.cut();
      }
    });

    it('deleting an instance ends its streams and deletes its event log; its key then answers 404', async () => {
      const carol = await phone(t, 'carol', '5511900000003');
      await sendTexts(t, alice, carol, ['to carol']);
      const stream = new SseClient(`${t.url}/${carol.key}/events`, { 'Last-Event-ID': ulidFloor(Date.now() - 60_000) });
      await t.waitFor(() => stream.events.some((f) => f.event === 'message'), 5000, 'carol\'s replay');
      assert.ok((await t.server.context.storage.events.read({ instance: carol.id, limit: 10 })).length > 0);
      assert.equal((await t.client().call('adminDeleteInstance', { params: { key: carol.key } })).status, 200);
      await stream.closed;
      assert.deepEqual(await t.server.context.storage.events.read({ instance: carol.id, limit: 10 }), []);
      assert.equal(t.server.context.streams.count(carol.id), 0);
      const after = new SseClient(`${t.url}/${carol.key}/events`);
      await after.closed;
      assert.equal(after.status, 404);
    });

    it('answers 401 and 404 with no event, 400 naming the bad field, and documents those statuses', async () => {
      const cases: [string, Record<string, string>, number, string][] = [
        ['/admin/events', {}, 401, 'unauthorized'],
        ['/admin/events', { Authorization: 'Bearer wrong-token-wrong-token' }, 401, 'unauthorized'],
        ['/admin/events?after=01ARZ3NDEKTSV4RRFFQ69G5FAV', { Authorization: `Bearer ${t.adminToken}`.replace(/.$/, '_') }, 401, 'unauthorized'],
        ['/unknownKeyunknownKeyunknownKey00/events', {}, 404, 'instance_not_found'],
        [`/${bob.key}/events?after=nope`, {}, 400, 'validation_failed'],
        [`/${bob.key}/events?format=xml`, {}, 400, 'validation_failed'],
        [`/${bob.key}/events`, { 'Last-Event-ID': 'not-an-id' }, 400, 'validation_failed'],
      ];
      for (const [path, headers, status, code] of cases) {
        const client = new SseClient(`${t.url}${path}`, headers);
        await client.opened;
        await client.closed;
        assert.equal(client.status, status, path);
        assert.match(client.contentType, /^application\/json/);
        assert.equal(JSON.parse(client.body).error.code, code, path);
        assert.equal(client.frames.length, 0);
      }
      const bad = new SseClient(`${t.url}/${bob.key}/events`, { 'Last-Event-ID': 'not-an-id' });
      await bad.closed;
      assert.match(JSON.parse(bad.body).error.message, /Last-Event-ID/);
      await assert.rejects(async () => {
        for await (const e of streamEvents({ baseUrl: t.url, key: 'unknownKeyunknownKeyunknownKey00' })) void e;
      }, (err: unknown) => err instanceof ParleyApiError && err.status === 404 && err.code === 'instance_not_found');
      const doc = (await t.request('GET', '/openapi.json')).body;
      for (const path of ['/{key}/events', '/admin/events']) {
        const op = doc.paths[path].get;
        assert.ok('text/event-stream' in op.responses['200'].content, path);
        for (const status of ['400', '429', path === '/admin/events' ? '401' : '404']) assert.ok(status in op.responses, `${path} documents ${status}`);
      }
      assert.deepEqual(t.server.undeclaredAnswers(), []);
    });
  });
}
