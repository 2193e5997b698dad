import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../support/test-server.js';

for (const storage of ['memory', 'sqlite'] as const) {
  describe(`GET /admin/instances pages (${storage} storage)`, () => {
    let t: TestServer;
    const ids: string[] = [];
    before(async () => {
      t = await startTestServer({ storage });
      for (let i = 0; i < 7; i++) ids.push((await t.createInstance({ name: `page ${i}` })).id);
    });
    after(async () => {
      await t.stop();
    });

    it('without a limit answers every instance of a small deployment, oldest first, with no cursor', async () => {
      const res = await t.client().call('adminListInstances');
      assert.deepEqual(res.data.map((r) => r.id), ids);
      assert.equal(res.cursor, undefined);
    });

    it('walks the instances a page at a time with the cursor, across a deletion, and the last page has no cursor', async () => {
      const api = t.client();
      const first = await api.call('adminListInstances', { query: { limit: 3 } });
      assert.deepEqual(first.data.map((r) => r.id), ids.slice(0, 3));
      assert.match(first.cursor!, /^[0-9]+$/);
      await api.call('adminDeleteInstance', { params: { key: ids[3]! } });
      const second = await api.call('adminListInstances', { query: { limit: 3, cursor: first.cursor! } });
      assert.deepEqual(second.data.map((r) => r.id), ids.slice(4, 7));
      assert.equal(second.cursor, undefined);
      // Each item is the full admin view, as GET /admin/instances/{key} answers it.
      const one = await api.call('adminGetInstance', { params: { key: ids[4]! } });
      assert.deepEqual(second.data[0], one.data);
      ids.splice(3, 1);
    });

    it('refuses a bad limit or cursor naming the field', async () => {
      const cases: [string, string][] = [
        ['limit=0', 'query.limit must be >= 1'],
        ['limit=1001', 'query.limit must be <= 1000'],
        ['limit=99999999999999999999', 'query.limit must be <= 1000'],
        ['limit=Infinity', 'query.limit must be a finite number'],
        ['limit=-Infinity', 'query.limit must be a finite number'],
        ['limit=1e999', 'query.limit must be a finite number'],
        ['limit=NaN', 'query.limit must be integer'],
        ['cursor=abc', 'query.cursor must match pattern "^[0-9]{1,15}$"'],
      ];
      for (const [query, message] of cases) {
        const res = await t.admin('GET', `/admin/instances?${query}`);
        assert.equal(res.status, 400, query);
        assert.equal(res.body.error.code, 'validation_failed');
        assert.equal(res.body.error.message, message);
      }
    });
  });
}
