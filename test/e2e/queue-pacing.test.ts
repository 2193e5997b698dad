import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FakeClock } from '@parley/testkit';
import { MessagingPair } from '../support/messaging.js';
import { driveQueue, NO_PACING, presencesAt, queueOf, sendText, setPolicy, TEST_QUEUE, textsAt } from '../support/queue.js';

const seconds = (ms: number) => Math.floor(ms / 1000);

/**
 * Issue 16, pacing on a fake clock: what the receiving sandbox phone sees follows the sending
 * instance's policy exactly — the gap, the per-minute count, quiet hours, typing — and per-recipient order.
 */
describe('outbound queue: pacing on a fake clock', () => {
  const clock = new FakeClock();
  let p: MessagingPair;

  before(async () => {
    p = await MessagingPair.start({ clock, storage: 'sqlite', config: { queue: TEST_QUEUE } }, ['5511960000101', '5511960000102']);
  });
  after(async () => {
    await p.stop();
  });

  it('the sandbox default paces nothing: a send is answered with the channel\'s record and arrives at once', async () => {
    const res = await p.t.request('GET', `/${p.alice.key}/queue/policy`);
    assert.deepEqual(res.body, {
      status: 200,
      data: { ...NO_PACING, typing: { enabled: false, msPerChar: 50, minMs: 1000, maxMs: 8000 }, maxQueued: 10_000 },
    });
    const sent = await sendText(p, p.alice, p.bob, 'straight through');
    assert.equal(sent.status, 200);
    assert.equal(sent.body.data.status, 'PENDING');
    assert.equal(sent.body.data.queue, undefined);
    await p.t.waitFor(() => textsAt(p, p.bob).some((m) => m.id === sent.body.data.key.id), 5000, 'the text at bob');
    assert.equal((await queueOf(p, p.alice)).total, 0);
  });

  it('a burst of 200 sends leaves 2 s apart, in order: the far side receives them on that exact schedule', async () => {
    await setPolicy(p, p.alice, { ...NO_PACING, minGapMs: 2_000 });
    const before = textsAt(p, p.bob).length;
    const start = clock.now();
    const answers = [];
    for (let i = 0; i < 200; i++) answers.push(await sendText(p, p.alice, p.bob, `burst ${i}`));
    for (const a of answers) {
      assert.equal(a.status, 200, JSON.stringify(a.body));
      assert.equal(a.body.data.status, 'PENDING');
      assert.ok(['queued', 'scheduled', 'sending'].includes(a.body.data.queue.state), JSON.stringify(a.body.data.queue));
    }
    await driveQueue(p, clock, p.alice, p.bob, before + 200);
    const got = textsAt(p, p.bob).slice(before);
    assert.deepEqual(got.map((m) => m.text), answers.map((_, i) => `burst ${i}`));
    assert.deepEqual(got.map((m) => m.id), answers.map((a) => a.body.data.key.id));
    // A new policy starts a fresh pace: the first leaves at once, each next one 2 s after it.
    assert.deepEqual(got.map((m) => m.timestamp), got.map((_, i) => seconds(start) + 2 * i));
    assert.equal((await queueOf(p, p.alice)).total, 0);
  });

  it('per minute: 10 a minute, 1 s apart — the 11th waits for the first to leave the minute', async () => {
    clock.advance(3_600_000);
    await setPolicy(p, p.alice, { ...NO_PACING, minGapMs: 1_000, perMinute: 10 });
    const before = textsAt(p, p.bob).length;
    const start = clock.now();
    for (let i = 0; i < 25; i++) assert.equal((await sendText(p, p.alice, p.bob, `minute ${i}`)).status, 200);
    await driveQueue(p, clock, p.alice, p.bob, before + 25);
    const expected: number[] = [];
    for (let i = 0; i < 25; i++) {
      const gapped = i === 0 ? start : expected[i - 1]! + 1_000;
      expected.push(i >= 10 ? Math.max(gapped, expected[i - 10]! + 60_000) : gapped);
    }
    assert.deepEqual(textsAt(p, p.bob).slice(before).map((m) => m.timestamp), expected.map(seconds));
  });

  it('quiet hours in a time zone hold a send until they end', async () => {
    // 2030-01-02T02:00Z is 23:00 in São Paulo (UTC-3): quiet until 07:00 local, 10:00Z.
    clock.set(Date.UTC(2030, 0, 2, 2, 0));
    await setPolicy(p, p.alice, { ...NO_PACING, quietHours: { start: '22:00', end: '07:00', timeZone: 'America/Sao_Paulo' } });
    const before = textsAt(p, p.bob).length;
    const res = await sendText(p, p.alice, p.bob, 'good morning');
    assert.ok(['queued', 'sending'].includes(res.body.data.queue.state), JSON.stringify(res.body.data.queue));
    await driveQueue(p, clock, p.alice, p.bob, before + 1);
    assert.equal(textsAt(p, p.bob)[before]!.timestamp, seconds(Date.UTC(2030, 0, 2, 10, 0)));
  });

  it('typing: the receiver sees composing for the text\'s time, then the message, then paused', async () => {
    await setPolicy(p, p.alice, { ...NO_PACING, typing: { enabled: true, msPerChar: 100, minMs: 500, maxMs: 5_000 } });
    const before = textsAt(p, p.bob).length;
    const presences = presencesAt(p, p.bob).length;
    const text = 'typed by a person';
    const res = await sendText(p, p.alice, p.bob, text);
    assert.equal(res.status, 200);
    assert.ok(res.body.data.queue, 'a typed send waits in the queue');
    const composing = await p.t.waitFor(() => presencesAt(p, p.bob).slice(presences).find((e) => e.status === 'composing'), 5000, 'composing at bob');
    const typedAt = clock.now();
    assert.equal(textsAt(p, p.bob).length, before, 'the message waits for the typing time');
    clock.advance(text.length * 100);
    await p.t.waitFor(() => textsAt(p, p.bob).length > before, 5000, 'the typed text');
    const paused = await p.t.waitFor(() => presencesAt(p, p.bob).slice(presences).find((e) => e.status === 'paused'), 5000, 'paused at bob');
    const message = textsAt(p, p.bob)[before]!;
    assert.ok(composing.index < message.index && message.index < paused.index, 'composing, then the message, then paused');
    assert.equal(message.timestamp, seconds(typedAt + text.length * 100));

    // `typing: false` on the body skips it; a number of ms sets it.
    const plain = await sendText(p, p.alice, p.bob, 'no typing', { typing: false });
    assert.equal(plain.body.data.queue, undefined);
  });

  it('sendAt in the past sends at once; in the future it waits and leaves once, on time; delay too', async () => {
    await setPolicy(p, p.alice, NO_PACING);
    const before = textsAt(p, p.bob).length;
    const past = await sendText(p, p.alice, p.bob, 'was due yesterday', { sendAt: new Date(clock.now() - 86_400_000).toISOString() });
    assert.equal(past.body.data.queue, undefined);
    await p.t.waitFor(() => textsAt(p, p.bob).length === before + 1, 5000, 'the past-due text');

    const at = clock.now() + 3_600_000;
    const future = await sendText(p, p.alice, p.bob, 'on the hour', { sendAt: new Date(at).toISOString().replace('Z', '+00:00') });
    assert.deepEqual(future.body.data.queue, { state: 'scheduled', dueAt: new Date(at).toISOString() });
    const delayed = await sendText(p, p.alice, p.bob, 'ten minutes later', { delay: 600_000 });
    assert.deepEqual(delayed.body.data.queue, { state: 'scheduled', dueAt: new Date(clock.now() + 600_000).toISOString() });
    const details = await p.t.request('GET', `/${p.alice.key}/message/${future.body.data.key.id}`);
    assert.deepEqual(details.body.data.queue, { state: 'scheduled', dueAt: new Date(at).toISOString() });

    clock.advance(600_000 - 1);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(textsAt(p, p.bob).length, before + 1, 'nothing before its time');
    clock.advance(1);
    await p.t.waitFor(() => textsAt(p, p.bob).length === before + 2, 5000, 'the delayed text');
    clock.set(at);
    await p.t.waitFor(() => textsAt(p, p.bob).length === before + 3, 5000, 'the scheduled text');
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(textsAt(p, p.bob).slice(before).map((m) => [m.text, m.timestamp]), [
      ['was due yesterday', seconds(at - 3_600_000)], ['ten minutes later', seconds(at - 3_000_000)], ['on the hour', seconds(at)],
    ]);
    const sent = await p.t.request('GET', `/${p.alice.key}/message/${future.body.data.key.id}`);
    assert.equal(sent.body.data.queue, undefined);
  });

  it('cancel before the time: never sent; a second cancel is 404', async () => {
    const before = textsAt(p, p.bob).length;
    const res = await sendText(p, p.alice, p.bob, 'never mind', { delay: 60_000 });
    const id = res.body.data.key.id;
    const cancelled = await p.t.request('DELETE', `/${p.alice.key}/queue/${id}`);
    assert.deepEqual(cancelled.body, { status: 200, message: `send ${id} cancelled` });
    clock.advance(120_000);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(textsAt(p, p.bob).length, before);
    assert.equal((await p.t.request('DELETE', `/${p.alice.key}/queue/${id}`)).body.error.code, 'queued_message_not_found');
    assert.equal((await p.t.request('GET', `/${p.alice.key}/message/${id}`)).status, 404);
  });

  it('pause keeps sends; past the bound a send answers 429 with Retry-After and is not stored; resume sends in order', async () => {
    await setPolicy(p, p.alice, { ...NO_PACING, maxQueued: 3 });
    const before = textsAt(p, p.bob).length;
    assert.deepEqual((await p.t.request('POST', `/${p.alice.key}/queue/pause`)).body, { status: 200, data: { paused: true, queued: 0 } });
    const ids = [];
    for (let i = 0; i < 3; i++) {
      const res = await sendText(p, p.alice, p.bob, `held ${i}`);
      assert.equal(res.body.data.queue.state, 'paused');
      ids.push(res.body.data.key.id);
    }
    const full = await sendText(p, p.alice, p.bob, 'one too many');
    assert.equal(full.status, 429);
    assert.equal(full.body.error.code, 'queue_full');
    assert.equal(full.headers.get('retry-after'), '1');
    const queue = await queueOf(p, p.alice);
    assert.deepEqual([queue.total, queue.paused, queue.data.map((r) => r.key.id)], [3, true, ids]);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(textsAt(p, p.bob).length, before);
    assert.deepEqual((await p.t.request('POST', `/${p.alice.key}/queue/resume`)).body, { status: 200, data: { paused: false, queued: 3 } });
    await p.t.waitFor(() => textsAt(p, p.bob).length === before + 3, 5000, 'the held texts');
    assert.deepEqual(textsAt(p, p.bob).slice(before).map((m) => m.id), ids);
  });

  it('deleting an instance deletes its queue: its scheduled sends never leave', async () => {
    const carol = await p.t.connectedSandbox({ name: 'carol', number: '5511960000103' });
    const before = p.t.events.filter((e) => e.type === 'message' && e.instance === p.bob.id).length;
    const res = await p.t.request('POST', `/${carol.key}/message/text`, { to: p.bob.number, text: 'from a deleted phone', delay: 60_000 });
    assert.equal(res.body.data.queue.state, 'scheduled');
    assert.equal((await p.t.admin('DELETE', `/admin/instances/${carol.key}`)).status, 200);
    assert.equal((await p.t.server.context.storage.outbound.count(carol.id)), 0);
    clock.advance(120_000);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(p.t.events.filter((e) => e.type === 'message' && e.instance === p.bob.id).length, before);
  });
});
