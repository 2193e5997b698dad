import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SqliteStorage } from '@parley/storage-sqlite';
import { startHttpReceiver, type HttpReceiver, type ReceivedRequest } from '@parley/testkit';
import { ServerChild } from '../support/server-child.js';

const A = '5511974000001';
const B = '5511974000002';
/** Sends fired in all, at most CONCURRENCY at a time; the server is killed once KILL_AFTER were answered. */
const TOTAL = 600;
const CONCURRENCY = 16;
const KILL_AFTER = 200;
/** Deliveries and sends the dead process had leased are retried soon after the restart. */
const CONFIG = {
  webhooks: { timeoutMs: 3_000, leaseMs: 4_000, retry: { schedule: [100, 200, 400], jitter: 0 }, housekeeping: { sweepCron: '* * * * * *' } },
  queue: { enabled: true, maxQueued: 10_000, leaseMs: 4_000, recheckMs: 100, concurrency: 16 },
};

interface Side {
  id: string;
  key: string;
}

/**
 * The sandbox network is as durable as its storage: a server process killed (SIGKILL) in the middle
 * of a burst of sends between two sandbox phones loses none of the sends it answered. A new process on
 * the same SQLite data directory delivers each of them to the receiving phone exactly once and brings
 * it to DELIVERY_ACK at the sender, then READ once the receiver reads the chat.
 */
// Latency 0 is the default; with 300 ms per hop the packets of the sends answered last are surely still on their way at the kill.
for (const latencyMs of [0, 300]) describe(`sandbox network: SIGKILL in the middle of a burst of sends (latency ${latencyMs} ms)`, () => {
  const SANDBOX = { latencyMs };
  let dataDir: string;
  let receiver: HttpReceiver;
  let server: ServerChild | undefined;
  let a: Side;
  let b: Side;
  /** Ids of the sends answered 2xx before the kill, in answer order. */
  const accepted: string[] = [];
  /** Sends that were on their way at the kill and got no answer (the connection died with the server). */
  let unanswered = 0;
  /** Packets in the inboxes of the two phones, in storage, at the kill. */
  let inFlightAtKill = 0;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'parley-sandbox-sigkill-'));
    receiver = await startHttpReceiver();
    server = await ServerChild.start(dataDir, CONFIG, { sandbox: SANDBOX });
    const hook = (path: string) => ({ allowWebhook: true, webhookFormat: 'native', webhookMessage: `${receiver.url}/${path}` });
    a = await server.connectedSandbox({ name: 'a', options: { number: A }, webhook: hook('a') });
    b = await server.connectedSandbox({ name: 'b', options: { number: B }, webhook: hook('b') });

    const first = server;
    let next = 0;
    let killing: Promise<unknown> | undefined;
    let dead = false;
    // The workers keep sending until the process is seen dead, so requests are surely on their way when
    // the signal lands; a request refused by the dead process was never in flight and is not counted.
    const worker = async () => {
      while (next < TOTAL && !dead) {
        const i = next++;
        try {
          const res = await first.request('POST', `/${a.key}/message/text`, { to: B, text: `burst ${i}` });
          assert.equal(res.status, 200, JSON.stringify(res.body));
          accepted.push(res.body.data.key.id);
        } catch (err) {
          if (err instanceof assert.AssertionError) throw err;
          // The answer never came: the process died first (or was already dead: refused).
          if (connectionCode(err) !== 'ECONNREFUSED') unanswered++;
          continue;
        }
        if (accepted.length >= KILL_AFTER) killing ??= first.kill('SIGKILL').then((signal) => { dead = true; return signal; });
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    assert.equal(await killing, 'SIGKILL');

    // The dead process's storage, read while no server runs: what the network still had in hand.
    const storage = new SqliteStorage({ file: join(dataDir, 'parley.db'), backgroundCheckpoints: false });
    await storage.init();
    for (const side of [a, b]) inFlightAtKill += (await storage.state.list(`${side.id}:sandbox:inbox`)).length;
    await storage.close();

    server = await ServerChild.start(dataDir, CONFIG, { sandbox: SANDBOX });
    let short: string[] = [];
    await until(async () => {
      const statuses = await statusesAt(a, B);
      short = accepted.filter((id) => statuses.get(id) !== 'DELIVERY_ACK').map((id) => `${id}: ${statuses.get(id) ?? 'missing'}`);
      return short.length === 0;
    }, () => `every accepted send to reach DELIVERY_ACK after the restart (${short.length} of ${accepted.length} did not: ${short.slice(0, 10).join(', ')})`);
    await until(async () => (await server!.request('GET', `/${b.key}/instance/webhook/statistics`)).body.data.totalPending === 0,
      'b\'s webhooks to be delivered');
  });
  after(async () => {
    await server?.kill('SIGTERM');
    await receiver?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** The error code under fetch's "fetch failed" (ECONNREFUSED, UND_ERR_SOCKET…). */
  function connectionCode(err: unknown): string | undefined {
    const cause = (err as { cause?: { code?: string } }).cause;
    return cause?.code;
  }

  /** Polls `check` until it holds (20 s at most). */
  async function until(check: () => Promise<boolean>, what: string | (() => string)): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}; server output: ${server?.stderr.join('')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Every message of one of `side`'s chats (all pages), as the REST API lists them. */
  async function messagesAt(side: Side, peer: string): Promise<{ key: { id: string; fromMe: boolean }; status: string; message: unknown }[]> {
    const all = [];
    for (let page = 1; ; page++) {
      const res = await server!.request('GET', `/${side.key}/chat/${peer}/messages?page=${page}&limit=100`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      all.push(...res.body.data);
      if (all.length >= res.body.total || !res.body.data.length) return all;
    }
  }

  async function statusesAt(side: Side, peer: string): Promise<Map<string, string>> {
    return new Map((await messagesAt(side, peer)).map((m) => [m.key.id, m.status]));
  }

  /** Message events b's webhook got, one per webhook id (a retried delivery repeats its id). */
  function messageEventsAtB(): { messageId: string; body: unknown }[] {
    const first = new Map<string, ReceivedRequest>();
    for (const request of receiver.requests.filter((r) => r.url === '/b')) {
      const id = String(request.headers['webhook-id']);
      if (!first.has(id)) first.set(id, request);
    }
    return [...first.values()].map((r) => r.json as { type: string; data: { message: { id: string } } })
      .filter((e) => e.type === 'message').map((e) => ({ messageId: e.data.message.id, body: e }));
  }

  it('the kill hit the burst: sends answered, sends cut off, packets still on their way', () => {
    assert.ok(accepted.length >= KILL_AFTER, `${accepted.length} sends answered`);
    assert.ok(accepted.length + unanswered < TOTAL, 'the burst did not finish');
    assert.ok(unanswered > 0, 'requests were in flight at the kill');
    if (latencyMs > 0) assert.ok(inFlightAtKill > 0, `packets were in the phones' inboxes at the kill (${inFlightAtKill})`);
  });

  it('b has every accepted message once, with its text', async () => {
    const atB = await messagesAt(b, A);
    const ids = atB.map((m) => m.key.id);
    assert.equal(new Set(ids).size, ids.length, 'no message is listed twice');
    const byId = new Map(atB.map((m) => [m.key.id, m]));
    for (const id of accepted) {
      const m = byId.get(id);
      assert.ok(m, `accepted message ${id} reached b`);
      assert.equal(m.key.fromMe, false);
      assert.match(JSON.stringify(m.message), /burst \d+/);
    }
    // What b has beyond the accepted sends are sends whose answer the kill cut off.
    assert.ok(atB.length <= accepted.length + unanswered);
  });

  it('b\'s phone reported each message once: one message event per message id', () => {
    const events = messageEventsAtB();
    const counts = new Map<string, number>();
    for (const { messageId } of events) counts.set(messageId, (counts.get(messageId) ?? 0) + 1);
    for (const [id, count] of counts) assert.equal(count, 1, `message ${id} was emitted ${count} times`);
    for (const id of accepted) assert.equal(counts.get(id), 1, `message ${id} reached b's webhook`);
  });

  it('b\'s chat counts each message once as unread', async () => {
    const chats = (await server!.request('GET', `/${b.key}/chat`)).body.data as { id: string; unreadCount: number }[];
    const chat = chats.find((c) => c.id === `${A}@s.whatsapp.net`);
    assert.equal(chat?.unreadCount, (await messagesAt(b, A)).length);
  });

  it('reading the chat after the restart brings every accepted send to READ at a', async () => {
    const read = await server!.request('PATCH', `/${b.key}/chat/${A}?action=markRead&value=true`);
    assert.equal(read.status, 200, JSON.stringify(read.body));
    await until(async () => {
      const statuses = await statusesAt(a, B);
      return accepted.every((id) => statuses.get(id) === 'READ');
    }, 'every accepted send to reach READ');
  });
});
