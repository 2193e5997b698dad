import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startHttpReceiver, type HttpReceiver, type ReceivedRequest } from '@parley/testkit';
import { ServerChild } from '../support/server-child.js';
import { assertStandardSignature } from '../support/webhook-receivers.js';

const TEXTS = 200;
/** Requests the receiver answers 200 before it starts holding every request open (in flight at the kill). */
const ANSWERED_BEFORE_HOLD = 30;
const CONFIG = {
  webhooks: { timeoutMs: 3_000, leaseMs: 4_000, retry: { schedule: [100, 200, 400, 800, 1_600, 3_200], jitter: 0 }, housekeeping: { sweepCron: '* * * * * *' } },
};
const A = '5511973000001';
const B = '5511973000002';

interface Side {
  id: string;
  key: string;
  secret: string;
}

/**
 * Crash safety on a real server process: a webhook backlog (some deliveries acknowledged, some in flight,
 * most queued) survives SIGKILL; a new process on the same SQLite data directory delivers every event,
 * in order per URL, repeating only deliveries that never got their 2xx recorded, with the same id.
 */
describe('webhooks: SIGKILL in the middle of a backlog', () => {
  let dataDir: string;
  let receiver: HttpReceiver;
  let server: ServerChild | undefined;
  const held: (() => void)[] = [];
  let hold = true;
  const ids: string[] = [];
  let a: Side;
  let b: Side;
  let killedAt = 0;
  let pendingAtKill = 0;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'parley-sigkill-'));
    receiver = await startHttpReceiver();
    receiver.respond((request) => {
      if (!hold || request.index < ANSWERED_BEFORE_HOLD) return {};
      // Held open until the process that sent it is dead: its 2xx is never recorded.
      return new Promise((resolve) => held.push(() => resolve({ destroy: true })));
    });
    server = await ServerChild.start(dataDir, CONFIG);
    const create = async (name: string, number: string, path: string): Promise<Side> => {
      const { id, key, webhookSecret } = await server!.connectedSandbox({
        name, options: { number },
        webhook: {
          allowWebhook: true, webhookFormat: 'native', webhookMessage: `${receiver.url}/${path}`, webhookMessageFromMe: `${receiver.url}/${path}-me`,
          webhookConnection: `${receiver.url}/conn`, webhookQrCode: `${receiver.url}/conn`,
        },
      });
      return { id, key, secret: webhookSecret };
    };
    a = await create('a', A, 'a');
    b = await create('b', B, 'b');
    for (let i = 0; i < TEXTS; i++) {
      const res = await server.request('POST', `/${a.key}/message/text`, { to: B, text: `backlog ${i}` });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      ids.push(res.body.data.key.id);
    }
    // Every event is queued (a: own copy, sent, delivered per text; b: the message), nothing delivered since the hold.
    const queued = async (side: Side) => {
      const { data } = (await server!.request('GET', `/${side.key}/instance/webhook/statistics`)).body;
      return data.totalSent + data.totalPending;
    };
    const deadline = Date.now() + 15_000;
    while ((await queued(a)) < 2 + 3 * TEXTS || (await queued(b)) < 2 + TEXTS) {
      if (Date.now() > deadline) throw new Error('the backlog was not queued in time');
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(held.length > 0, 'deliveries are in flight at the kill');
    for (const side of [a, b]) pendingAtKill += (await server.request('GET', `/${side.key}/instance/webhook/statistics`)).body.data.totalPending;
    assert.equal(await server.kill('SIGKILL'), 'SIGKILL');
    killedAt = receiver.requests.length;
    hold = false;
    for (const release of held.splice(0)) release();

    server = await ServerChild.start(dataDir, CONFIG);
    const drained = async (side: Side) => (await server!.request('GET', `/${side.key}/instance/webhook/statistics`)).body.data.totalPending === 0;
    const until = Date.now() + 20_000;
    while (!(await drained(a)) || !(await drained(b))) {
      if (Date.now() > until) throw new Error('the backlog was not delivered after the restart');
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  after(async () => {
    await server?.kill('SIGTERM');
    await receiver?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const at = (path: string) => receiver.requests.filter((r) => r.url === `/${path}`);
  /** Distinct deliveries in order of first arrival; every repeat has the same id and the identical body. */
  const distinct = (requests: ReceivedRequest[]) => {
    const first = new Map<string, ReceivedRequest>();
    for (const request of requests) {
      const id = String(request.headers['webhook-id']);
      const seen = first.get(id);
      if (seen) assert.equal(request.body, seen.body, `repeat of ${id}`);
      else first.set(id, request);
    }
    return [...first.values()];
  };
  const body = (r: ReceivedRequest) => r.json as any;

  it('the kill happened mid-backlog: part delivered, part in flight, the rest queued', () => {
    assert.ok(killedAt > ANSWERED_BEFORE_HOLD, 'requests were in flight at the kill');
    assert.ok(pendingAtKill > 4 * TEXTS - ANSWERED_BEFORE_HOLD, `most of the backlog was queued at the kill (${pendingAtKill})`);
    assert.ok(receiver.requests.length >= killedAt + pendingAtKill, 'the new process delivered the rest');
  });

  it('every message reaches b once per id, in order', () => {
    const got = distinct(at('b'));
    assert.deepEqual(got.map((r) => body(r).data.message.id), ids);
    assert.deepEqual(got.map((r) => body(r).data.message.content), ids.map((_, i) => ({ type: 'text', body: `backlog ${i}` })));
    for (const request of at('b')) assertStandardSignature(request, b.secret);
  });

  it('every own copy and every status reaches a, in event order per URL', () => {
    const own = distinct(at('a-me'));
    assert.deepEqual(own.map((r) => [body(r).type, body(r).data.message.id, body(r).data.message.fromMe]), ids.map((id) => ['message', id, true]));
    const statuses = distinct(at('a'));
    assert.deepEqual(
      statuses.map((r) => `${body(r).data.messageId}:${body(r).data.status}`).sort(),
      ids.flatMap((id) => [`${id}:sent`, `${id}:delivered`]).sort(),
    );
    for (const list of [own, statuses, distinct(at('b'))]) {
      const eventIds = list.map((r) => body(r).id as string);
      assert.deepEqual(eventIds, [...eventIds].sort(), 'first arrivals follow event order (ULIDs)');
    }
    for (const request of [...at('a'), ...at('a-me')]) assertStandardSignature(request, a.secret);
  });

  it('repeats are only deliveries whose answer was never recorded, and the statistics survived the kill', async () => {
    for (const [side, paths] of [[a, ['a', 'a-me']], [b, ['b']]] as const) {
      const requests = paths.flatMap((p) => at(p));
      const unique = distinct(requests);
      const stats = (await server!.request('GET', `/${side.key}/instance/webhook/statistics`)).body.data;
      const conn = distinct(at('conn')).filter((r) => body(r).instance === side.id);
      assert.equal(stats.totalPending, 0);
      assert.equal(stats.totalSent, unique.length + conn.length, 'each delivery acknowledged once');
      // A repeat is a request held open at the kill (or timed out while held): never answered with 2xx.
      for (const request of requests) {
        const repeats = requests.filter((r) => r.headers['webhook-id'] === request.headers['webhook-id']);
        if (repeats.length > 1) assert.ok(repeats.slice(0, -1).every((r) => r.index >= ANSWERED_BEFORE_HOLD && r.index < killedAt));
      }
      const dead = await server!.request('GET', `/${side.key}/instance/webhook/dead-letters`);
      assert.equal(dead.body.total, 0);
    }
    // Each instance's lane at /conn: its QR code and connection before the kill, its restored connection after.
    for (const side of [a, b]) {
      const connection = distinct(at('conn')).filter((r) => body(r).instance === side.id).map((r) => [body(r).type, body(r).data.status ?? null]);
      assert.deepEqual(connection, [['qrcode', null], ['connection', 'open'], ['connection', 'open']]);
    }
  });
});
