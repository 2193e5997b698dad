import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually, serviceUrlOrSkip, startHttpReceiver, TcpProxy, type HttpReceiver } from '@parley/testkit';
import { createTestDatabase, type TestDatabase } from '@parley/storage-postgres/testing';
import { TEST_QUEUE } from '../support/queue.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const serverUrl = serviceUrlOrSkip('DATABASE_URL', 'the server on PostgreSQL storage through an outage');

/** Parallel senders of the load, and how long each phase of the outage lasts. */
const SENDERS = 4;
const PHASE_MS = 1_500;

if (serverUrl) {
  describe('the server on PostgreSQL storage through an outage', () => {
    const target = new URL(serverUrl);
    const proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
    let database: TestDatabase;
    let t: TestServer;
    let receiver: HttpReceiver;

    before(async () => {
      await proxy.start();
      receiver = await startHttpReceiver();
      database = await createTestDatabase(serverUrl, 'outage');
      const url = new URL(database.url);
      url.hostname = '127.0.0.1';
      url.port = String(proxy.port);
      t = await startTestServer({
        plugins: [
          { package: '@parley/storage-postgres', options: { url: url.toString(), commandTimeoutMs: 1_000, poolSize: 4 } },
          { package: '@parley/channel-sandbox' }, { package: '@parley/webhook-native' },
        ],
        // A send, or a webhook delivery, whose settling the outage cut is done again when its lease ends: short
        // leases keep the test short.
        config: { queue: { ...TEST_QUEUE, leaseMs: 2_000 }, webhooks: { timeoutMs: 1_000, leaseMs: 2_500 } },
        captureLogs: true,
      });
    });
    after(async () => {
      await t.stop();
      await receiver.close();
      await proxy.cut();
      await database.drop();
    });

    // Reported as todo while it is not reliable: in about one run in four one accepted send was stored and
    // never reached its webhook within 30 s, cause not found yet (issue 29 stays open for it).
    it('answers sends 503 while PostgreSQL is refused or silent, loses none it accepted and recovers by itself', {
      timeout: 120_000, todo: 'issue 29: one accepted send in about four runs stored but its webhook not delivered; cause unknown',
    }, async () => {
      const alice = await t.connectedSandbox({ name: 'alice', number: '5511930000001' });
      const bob = await t.connectedSandbox({
        name: 'bob', number: '5511930000002',
        webhook: { allowWebhook: true, webhookFormat: 'native', webhookMessage: `${receiver.url}/hook` },
      });
      const answers = new Map<string, number>();
      let sent = 0;
      let running = true;
      // Senders post texts one after another until told to stop; every text is unique, to find it again.
      const senders = Array.from({ length: SENDERS }, async () => {
        while (running) {
          const text = `load ${sent++}`;
          const answer = await t.request('POST', `/${alice.key}/message/text`, { to: '5511930000002', text });
          answers.set(text, answer.status);
          if (answer.status === 503) assert.equal(answer.body.error.code, 'service_unavailable');
        }
      });
      const statusesSince = (from: number) => [...answers.values()].slice(from);
      const phase = async (name: string) => {
        const from = answers.size;
        await new Promise((resolve) => setTimeout(resolve, PHASE_MS));
        return { name, statuses: statusesSince(from) };
      };

      const before = await phase('before');
      await proxy.cut();
      const refused = await phase('refused');
      await proxy.restore();
      assert.ok(await eventually(async () => (await t.request('GET', '/readyz')).status === 200, 100, 100), '/readyz recovers after the refusal');
      const between = await phase('between');
      await proxy.reset();
      await proxy.silence();
      const silent = await phase('silent');
      assert.equal((await t.request('GET', '/readyz')).status, 503, '/readyz reports the silent database');
      assert.equal((await t.request('GET', '/healthz')).status, 200, 'liveness is unaffected');
      await proxy.restore();
      assert.ok(await eventually(async () => (await t.request('GET', '/readyz')).status === 200, 100, 100), '/readyz recovers after the silence');
      const afterwards = await phase('after');
      running = false;
      await Promise.all(senders);

      for (const { name, statuses } of [before, refused, between, silent, afterwards]) {
        assert.ok(statuses.every((status) => status === 200 || status === 503), `${name}: only 200 and 503 answers, got ${statuses.join(',')}`);
      }
      for (const { name, statuses } of [before, between, afterwards]) assert.ok(statuses.includes(200), `${name}: sends succeed`);
      for (const { name, statuses } of [refused, silent]) assert.ok(statuses.includes(503), `${name}: sends answer 503`);
      assert.ok(afterwards.statuses.filter((status) => status === 200).length >= afterwards.statuses.length / 2, 'recovered: most sends succeed');

      // Every accepted send is in alice's history and reaches bob's webhook.
      const accepted = [...answers].filter(([, status]) => status === 200).map(([text]) => text);
      // A send the pacing queued is stored when it leaves the queue: wait for the queue to drain.
      const unstored = async () => {
        const stored = new Set<string>();
        for (let page = 1; page <= Math.ceil(sent / 100) + 1; page++) {
          const history = await t.request('GET', `/${alice.key}/chat/5511930000002/messages?limit=100&page=${page}`);
          assert.equal(history.status, 200);
          for (const text of JSON.stringify(history.body.data).match(/load \d+/g) ?? []) stored.add(text);
        }
        return accepted.filter((text) => !stored.has(text));
      };
      await t.waitFor(async () => (await unstored()).length === 0, 30_000, 'every accepted send to be stored')
        .catch(async (err: unknown) => {
          const queue = await t.request('GET', `/${alice.key}/queue?limit=100`);
          const warnings = t.logs.filter((l) => /"level":(40|50|60)/.test(l)).slice(-40).map((l) => l.slice(0, 600)).join('\n');
          assert.fail(`${String(err)}: ${(await unstored()).join(', ')} of ${accepted.length}; queue ${queue.status} ${JSON.stringify(queue.body).slice(0, 600)}\n${warnings}`);
        });
      const undelivered = () => accepted.filter((text) => !receiver.requests.some((request) => request.body.includes(`"${text}"`)));
      await t.waitFor(() => undelivered().length === 0, 30_000, 'every accepted send to reach the webhook')
        .catch((err: unknown) => assert.fail(`${String(err)} : ${undelivered().join(', ')} of ${accepted.length}`));
    });
  });
}
