import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FakeClock, serviceUrlOrSkip } from '@parley/testkit';
import { MessagingPair } from '../support/messaging.js';
import { queueOf, sendText, TEST_QUEUE, textsAt } from '../support/queue.js';

/** The outbound queue's API on PostgreSQL storage: scheduled sends, the listing, pause and resume, a cancel, and order. */
if (serviceUrlOrSkip('DATABASE_URL', 'the outbound queue on PostgreSQL storage')) {
  describe('outbound queue on PostgreSQL storage', () => {
    const clock = new FakeClock();
    let p: MessagingPair;

    before(async () => {
      p = await MessagingPair.start({ clock, storage: 'postgres', config: { queue: TEST_QUEUE } }, ['5511964000001', '5511964000002']);
    });
    after(async () => {
      await p.stop();
    });

    it('holds delayed sends in order, lists them, keeps them through a pause, cancels one and sends the rest on time', async () => {
      const before = textsAt(p, p.bob).length;
      const first = await sendText(p, p.alice, p.bob, 'one', { delay: 60_000 });
      const second = await sendText(p, p.alice, p.bob, 'two', { delay: 60_000 });
      const third = await sendText(p, p.alice, p.bob, 'three', { delay: 60_000 });
      for (const res of [first, second, third]) assert.equal(res.status, 200, JSON.stringify(res.body));
      const queued = await queueOf(p, p.alice);
      assert.equal(queued.total, 3);
      assert.deepEqual(queued.data.map((item) => item.key.id), [first, second, third].map((res) => res.body.data.key.id));

      const cancelled = await p.t.request('DELETE', `/${p.alice.key}/queue/${second.body.data.key.id}`);
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      assert.equal((await p.t.request('POST', `/${p.alice.key}/queue/pause`)).body.data.paused, true);
      clock.advance(60_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(textsAt(p, p.bob).length, before, 'nothing leaves while paused');
      assert.deepEqual(await queueOf(p, p.alice).then((q) => [q.total, q.paused]), [2, true]);

      assert.equal((await p.t.request('POST', `/${p.alice.key}/queue/resume`)).body.data.paused, false);
      await p.t.waitFor(() => textsAt(p, p.bob).length >= before + 2, 10_000, 'the two kept sends');
      assert.deepEqual(textsAt(p, p.bob).slice(before).map((m) => m.text), ['one', 'three']);
      await p.t.waitFor(async () => (await queueOf(p, p.alice)).total === 0, 5_000, 'the queue to empty');
      const again = await p.t.request('DELETE', `/${p.alice.key}/queue/${second.body.data.key.id}`);
      assert.equal(again.status, 404);
    });
  });
}
