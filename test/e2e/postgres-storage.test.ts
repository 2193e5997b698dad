import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually, serviceUrlOrSkip } from '@parley/testkit';
import { startOutageServer, type OutageServer } from '../support/postgres-outage.js';
import { TEST_QUEUE } from '../support/queue.js';

const serverUrl = serviceUrlOrSkip('DATABASE_URL', 'the server on PostgreSQL storage through an outage');

/** Parallel senders of the load, and how long each phase of the outage lasts. */
const SENDERS = 4;
const PHASE_MS = 1_500;
/** Longest a phase waits past PHASE_MS for the answer it is about. */
const PHASE_WAIT_MS = 20_000;
const UNAVAILABLE = '503 service_unavailable';
/**
 * The answers a send may get: sent, refused while storage is down, or sent by the channel just as
 * storage failed, before its record could be stored (it must not be sent again; the queue stores it).
 */
const ANSWERS = new Set(['200', UNAVAILABLE, '500 sent_not_recorded']);

if (serverUrl) {
  describe('the server on PostgreSQL storage through an outage', () => {
    let s: OutageServer | undefined;

    before(async () => {
      // A send, or a webhook delivery, whose settling the outage cut is done again when its lease ends: short
      // leases keep the test short.
      s = await startOutageServer(serverUrl, 'outage', { queue: { ...TEST_QUEUE, leaseMs: 2_000 }, webhooks: { timeoutMs: 1_000, leaseMs: 2_500 } });
    });
    after(() => s?.close());

    it('answers sends 503 while PostgreSQL is refused or silent, loses none it accepted and recovers by itself', {
      timeout: 120_000,
    }, async () => {
      const { t, proxy, receiver } = s!;
      const alice = await t.connectedSandbox({ name: 'alice', number: '5511930000001' });
      const bob = await t.connectedSandbox({
        name: 'bob', number: '5511930000002',
        webhook: { allowWebhook: true, webhookFormat: 'native', webhookMessage: `${receiver.url}/hook` },
      });
      // Each text's answer: `200`, or the status and error code (`503 service_unavailable`).
      const answers = new Map<string, string>();
      let sent = 0;
      let running = true;
      // Senders post texts one after another until told to stop; every text is unique, to find it again.
      const senders = Array.from({ length: SENDERS }, async () => {
        while (running) {
          const text = `load ${sent++}`;
          const answer = await t.request('POST', `/${alice.key}/message/text`, { to: '5511930000002', text });
          answers.set(text, answer.status === 200 ? '200' : `${answer.status} ${answer.body?.error?.code}`);
        }
      });
      const statusesSince = (from: number) => [...answers.values()].slice(from);
      // A phase lasts PHASE_MS, and then until it has seen the answer it is about (a slow machine's sends
      // may take longer than the phase): the test does not depend on the machine's speed.
      const phase = async (name: string, awaited: string) => {
        const from = answers.size;
        await new Promise((resolve) => setTimeout(resolve, PHASE_MS));
        await t.waitFor(() => statusesSince(from).includes(awaited), PHASE_WAIT_MS, `a ${awaited} answer in the ${name} phase`).catch(() => undefined);
        return { name, statuses: statusesSince(from) };
      };
      const before = await phase('before', '200');
      await proxy.cut();
      const refused = await phase('refused', UNAVAILABLE);
      await proxy.restore();
      assert.ok(await eventually(async () => (await t.request('GET', '/readyz')).status === 200, 100, 100), '/readyz recovers after the refusal');
      const between = await phase('between', '200');
      await proxy.reset();
      await proxy.silence();
      const silent = await phase('silent', UNAVAILABLE);
      assert.equal((await t.request('GET', '/readyz')).status, 503, '/readyz reports the silent database');
      assert.equal((await t.request('GET', '/healthz')).status, 200, 'liveness is unaffected');
      await proxy.restore();
      assert.ok(await eventually(async () => (await t.request('GET', '/readyz')).status === 200, 100, 100), '/readyz recovers after the silence');
      const afterwards = await phase('after', '200');
      running = false;
      await Promise.all(senders);

      for (const { name, statuses } of [before, refused, between, silent, afterwards]) {
        assert.ok(statuses.every((status) => ANSWERS.has(status)), `${name}: only 200, 503 and sent_not_recorded answers, got ${statuses.join(',')}`);
      }
      for (const { name, statuses } of [before, between, afterwards]) assert.ok(statuses.includes('200'), `${name}: sends succeed`);
      for (const { name, statuses } of [refused, silent]) assert.ok(statuses.includes(UNAVAILABLE), `${name}: sends answer 503`);
      assert.ok(afterwards.statuses.filter((status) => status === '200').length >= afterwards.statuses.length / 2, 'recovered: most sends succeed');

      // Every accepted send is in alice's history and reaches bob's webhook; so is every send the channel
      // took whose record the outage kept from being stored (500 sent_not_recorded: it is stored later).
      const accepted = [...answers].filter(([, status]) => status !== UNAVAILABLE).map(([text]) => text);
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
        .catch(async (err: unknown) => {
          const stats = await t.request('GET', `/${bob.key}/instance/webhook/statistics`);
          const lines = t.logs.join('').split('\n').filter((l) => /"level":(40|50|60)/.test(l) && /webhook|deliver|event/i.test(l));
          assert.fail(`${String(err)} : ${undelivered().join(', ')} of ${accepted.length}; webhook statistics ${JSON.stringify(stats.body)}; `
            + `${receiver.requests.length} requests received\n${lines.slice(-30).map((l) => l.slice(0, 500)).join('\n')}`);
        });
    });
  });
}
