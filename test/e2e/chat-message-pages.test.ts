import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/test-server.js';

const ALICE = '5511977100001';
const BOB = '5511977100002';
const SENDS = 23;

/**
 * `GET /{key}/chat/{jid}/messages` with `page` and `limit` over real HTTP, on the back ends whose
 * pages are kept in the write (issue 26): every page carries the chat's exact total, the pages read
 * one after another hold each message once newest first, a page past the end is empty, and the
 * total follows the chat's deletion and the next send.
 */
for (const storage of ['sqlite', 'memory'] as const) {
  describe(`chat message pages over HTTP (${storage} storage)`, () => {
    let t: TestServer;
    let alice: { key: string };
    const sent: string[] = [];

    const messages = (query: string) => t.request('GET', `/${alice.key}/chat/${BOB}/messages?${query}`);

    before(async () => {
      t = await startTestServer({ storage });
      alice = await t.connectedSandbox({ name: 'alice', number: ALICE });
      await t.connectedSandbox({ name: 'bob', number: BOB });
      for (let i = 0; i < SENDS; i++) {
        const res = await t.request('POST', `/${alice.key}/message/text`, { to: BOB, text: `page test ${i}` });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        sent.push(res.body.data.key.id);
      }
    });
    after(() => t?.stop());

    it('pages by page and limit: exact totals, newest first, no duplicate and no gap', async () => {
      const seen: string[] = [];
      for (let page = 1; page <= 5; page++) {
        const res = await messages(`page=${page}&limit=5`);
        assert.equal(res.status, 200);
        assert.deepEqual([res.body.page, res.body.limit, res.body.total], [page, 5, SENDS]);
        assert.equal(res.body.data.length, page < 5 ? 5 : 3);
        seen.push(...res.body.data.map((m: { key: { id: string } }) => m.key.id));
      }
      assert.deepEqual(seen, [...sent].reverse());
      const past = await messages('page=6&limit=5');
      assert.deepEqual([past.status, past.body.data, past.body.total], [200, [], SENDS]);
      const defaults = await messages('');
      assert.deepEqual([defaults.body.page, defaults.body.limit, defaults.body.total, defaults.body.data.length], [1, 20, SENDS, 20]);
    });

    it('refuses a bad page or limit with a JSON error, and the chat is unchanged', async () => {
      for (const [query, message] of [['page=0', 'query.page must be >= 1'], ['limit=101', 'query.limit must be <= 100'], ['page=x', 'query.page must be integer']]) {
        const res = await messages(query);
        assert.equal(res.status, 400, query);
        assert.equal(res.body.error.code, 'validation_failed');
        assert.equal(res.body.error.message, message);
      }
      assert.equal((await messages('limit=1')).body.total, SENDS);
    });

    it('the total follows a chat deletion and the next send', async () => {
      assert.equal((await t.request('DELETE', `/${alice.key}/chat/${BOB}`)).status, 200);
      const emptied = await messages('page=1&limit=5');
      assert.deepEqual([emptied.body.data, emptied.body.total], [[], 0]);
      const res = await t.request('POST', `/${alice.key}/message/text`, { to: BOB, text: 'after the deletion' });
      const after = await messages('page=1&limit=5');
      assert.deepEqual([after.body.data.map((m: { key: { id: string } }) => m.key.id), after.body.total], [[res.body.data.key.id], 1]);
    });
  });
}
