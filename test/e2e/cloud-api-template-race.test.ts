import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { serviceUrlOrSkip } from '@parley/testkit';
import { CLOUD_VERSION, cloudRequest } from '../support/cloud-api.js';
import { withPostgres } from '../support/storages.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const storages = [...withPostgres('Cloud API template creates racing', ['sqlite'] as const),
  ...(serviceUrlOrSkip('REDIS_URL', 'Cloud API template creates racing on Redis') ? ['redis' as const] : [])];

/**
 * Creates of one template name and language that race (the state store has no put-if-absent): one
 * succeeds, the others answer what a create after it answers. On back ends whose reads wait for the
 * network (Redis, PostgreSQL) several creates would otherwise read "absent" before the first wrote.
 */
for (const storage of storages) {
  describe(`Cloud API: racing creates of a business account's template (${storage})`, () => {
    let t: TestServer;
    let alice: { id: string; key: string };
    before(async () => {
      t = await startTestServer({ storage });
      alice = await t.connectedSandbox({ name: 'alice', number: '5511900000921' });
    });
    after(async () => {
      await t.stop();
    });

    it('creates the name and language once: the others answer the duplicate\'s error, and the winner\'s template is the one kept', async () => {
      const path = `/${CLOUD_VERSION}/${alice.id}/message_templates`;
      const create = (i: number) => cloudRequest(t, alice.key, 'POST', path, { name: 'raced', language: 'en', category: 'UTILITY', components: [{ type: 'BODY', text: `racer ${i}` }] });
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => create(i)));
      const won = answers.filter((a) => a.status === 200);
      assert.equal(won.length, 1, JSON.stringify(answers));
      for (const lost of answers.filter((a) => a.status !== 200)) {
        assert.deepEqual([lost.status, lost.body.error.code, lost.body.error.error_subcode], [400, 100, 2388024], JSON.stringify(lost.body));
      }
      const listed = await cloudRequest(t, alice.key, 'GET', `${path}?name=raced`);
      assert.deepEqual(listed.body.data.map((d: { id: string }) => d.id), [won[0]!.body.id]);
    });
  });
}
