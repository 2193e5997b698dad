import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MessagingPair } from '../support/messaging.js';
import { NO_PACING, sendText, setPolicy, TEST_QUEUE, textsAt } from '../support/queue.js';
import { ServerChild } from '../support/server-child.js';

const A = '5511961000001';
const B = '5511961000002';
const CONFIG = { queue: { ...TEST_QUEUE, recheckMs: 50 } };

interface Side {
  id: string;
  key: string;
}

/**
 * Issue 16: a scheduled send is stored when the API answers. A server process killed (SIGKILL) right
 * after accepting it, and one stopped and started again, send it once, on time; a send cancelled
 * before its time is never sent, across the restart too.
 */
describe('outbound queue: scheduled sends across SIGKILL and restart (real processes, SQLite)', () => {
  let dataDir: string;
  let server: ServerChild | undefined;
  let a: Side;
  let b: Side;
  const scheduled: { id: string; text: string; at: number }[] = [];

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'parley-queue-restart-'));
    server = await ServerChild.start(dataDir, CONFIG);
    a = await server.connectedSandbox({ name: 'a', options: { number: A } });
    b = await server.connectedSandbox({ name: 'b', options: { number: B } });
  });
  after(async () => {
    await server?.kill('SIGTERM');
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  async function schedule(text: string, inMs: number): Promise<string> {
    const at = Date.now() + inMs;
    const res = await server!.request('POST', `/${a.key}/message/text`, { to: B, text, sendAt: new Date(at).toISOString() });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.status, 'PENDING');
    assert.equal(res.body.data.queue.state, 'scheduled');
    scheduled.push({ id: res.body.data.key.id, text, at });
    return res.body.data.key.id;
  }

  async function textsAtB(): Promise<{ id: string; text: string; timestamp: number }[]> {
    const res = await server!.request('GET', `/${b.key}/chat/${A}/messages?limit=100`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return (res.body.data as { key: { id: string }; message: { extendedTextMessage?: { text: string } }; messageTimestamp: string }[])
      .map((m) => ({ id: m.key.id, text: m.message.extendedTextMessage?.text ?? '', timestamp: Number(m.messageTimestamp) })).reverse();
  }

  async function until(check: () => Promise<boolean>, what: string): Promise<void> {
    const deadline = Date.now() + 40_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; server output: ${server?.stderr.join('')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('SIGKILL right after the answer: the send leaves once, on time, from the next process; a cancelled one never', async () => {
    // Far enough ahead that both restarts below are done (a loaded machine takes seconds to start a server).
    await schedule('survives the kill', 20_000);
    const cancelled = await schedule('cancelled before the kill', 20_500);
    assert.equal((await server!.request('DELETE', `/${a.key}/queue/${cancelled}`)).status, 200);
    scheduled.pop();
    assert.equal(await server!.kill('SIGKILL'), 'SIGKILL');
    server = await ServerChild.start(dataDir, CONFIG);
    const queue = await server.request('GET', `/${a.key}/queue`);
    assert.deepEqual(queue.body.data.map((r: { key: { id: string } }) => r.key.id), [scheduled[0]!.id]);

    await schedule('survives a restart', 12_000);
    assert.equal(await server.kill('SIGTERM'), 0);
    server = await ServerChild.start(dataDir, CONFIG);

    await until(async () => (await textsAtB()).length >= 2, 'both scheduled texts at b');
    // Long enough for a second copy to show up if one were sent.
    await new Promise((r) => setTimeout(r, 1_500));
    const got = await textsAtB();
    assert.deepEqual(got.map((m) => m.id).sort(), scheduled.map((s) => s.id).sort(), 'each scheduled send once, the cancelled one never');
    for (const s of scheduled) {
      const m = got.find((g) => g.id === s.id)!;
      assert.equal(m.text, s.text);
      // On time: not before sendAt, and within seconds after it (a loaded machine starts the next process slowly).
      assert.ok(m.timestamp >= Math.floor(s.at / 1000), `${s.text} left at ${m.timestamp}, before ${s.at}`);
      assert.ok(m.timestamp <= Math.floor(s.at / 1000) + 8, `${s.text} left at ${m.timestamp}, late for ${s.at}`);
    }
    assert.equal((await server.request('GET', `/${a.key}/queue`)).body.total, 0);
  });
});

/** With the real clock, one bounded run: gaps at the far side stay within the policy's gap and jitter. */
describe('outbound queue: pacing with the real clock', () => {
  let p: MessagingPair;

  before(async () => {
    p = await MessagingPair.start({ config: { queue: TEST_QUEUE } }, ['5511962000001', '5511962000002']);
  });
  after(async () => {
    await p.stop();
  });

  it('10 sends 300–500 ms apart', async () => {
    await setPolicy(p, p.alice, { ...NO_PACING, minGapMs: 300, jitterMs: 200 });
    for (let i = 0; i < 10; i++) assert.equal((await sendText(p, p.alice, p.bob, `real ${i}`)).status, 200);
    await p.t.waitFor(() => textsAt(p, p.bob).length === 10, 15_000, 'the ten texts at bob');
    assert.deepEqual(textsAt(p, p.bob).map((m) => m.text), Array.from({ length: 10 }, (_, i) => `real ${i}`));
    const gapsAt = (instance: string, fromMe: boolean) => {
      const times = p.t.events.filter((e) => e.type === 'message' && e.instance === instance && e.message.fromMe === fromMe).map((e) => e.receivedAt);
      return times.slice(1).map((t, i) => t - times[i]!);
    };
    // When they left (the sending phone's own copy of each): the policy's gap at least, its jitter at most plus a loaded machine's delay.
    const sent = gapsAt(p.alice.id, true);
    for (const gap of sent) assert.ok(gap >= 300 && gap <= 500 + 400, `sent ${gap} ms apart (${sent.join(', ')})`);
    // At the far side the network's own delay varies per message; over the nine gaps it evens out.
    const received = gapsAt(p.bob.id, false);
    assert.ok(received.reduce((a, b) => a + b, 0) >= 9 * 300 - 100, `received ${received.join(', ')} ms apart`);
  });
});
