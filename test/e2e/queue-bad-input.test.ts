import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MessagingPair } from '../support/messaging.js';
import { queueOf, sendText, TEST_QUEUE, textsAt } from '../support/queue.js';

/** Issue 16: bad queue options and impossible policies answer 400 naming the field, and nothing is queued or changed. */
describe('outbound queue: bad input', () => {
  let p: MessagingPair;

  before(async () => {
    p = await MessagingPair.start({ config: { queue: TEST_QUEUE } }, ['5511963000001', '5511963000002']);
  });
  after(async () => {
    await p.stop();
  });

  const sends: [string, Record<string, unknown>, RegExp][] = [
    ['a negative delay', { delay: -1 }, /body\.delay must be >= 0/],
    ['a huge delay', { delay: 1e12 }, /body\.delay must be <= 2592000000/],
    ['a fractional delay', { delay: 1.5 }, /body\.delay must be integer/],
    ['an unparseable sendAt', { sendAt: 'tomorrow at noon' }, /body\.sendAt/],
    ['a sendAt without a zone', { sendAt: '2030-01-01T10:00:00' }, /body\.sendAt must be an ISO 8601 time with a zone/],
    ['an impossible day', { sendAt: '2030-02-30T10:00:00Z' }, /body\.sendAt must be an ISO 8601 time with a zone/],
    ['a sendAt 40 days ahead', { sendAt: new Date(Date.now() + 40 * 86_400_000).toISOString() }, /body\.sendAt must be at most 30 days ahead/],
    ['delay and sendAt together', { delay: 10, sendAt: new Date().toISOString() }, /body\.sendAt cannot be combined with body\.delay/],
    ['a negative typing time', { typing: -5 }, /body\.typing/],
    ['a typing time over 25 s', { typing: 60_000 }, /body\.typing/],
  ];
  for (const [what, options, message] of sends) {
    it(`send with ${what}: 400 naming the field, nothing queued or sent`, async () => {
      const res = await sendText(p, p.alice, p.bob, 'must not leave', options);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.code, 'validation_failed');
      assert.match(res.body.error.message, message);
      assert.equal((await queueOf(p, p.alice)).total, 0);
    });
  }

  const policies: [string, Record<string, unknown>, RegExp][] = [
    ['perHour below perMinute', { perMinute: 30, perHour: 10 }, /body\.perHour \(10\) must be at least perMinute \(30\)/],
    ['a perMinute the gap can never reach', { perMinute: 30, minGapMs: 5_000 }, /body\.perMinute \(30\) can never be reached with minGapMs 5000/],
    ['quiet all day', { quietHours: { start: '08:00', end: '08:00', timeZone: 'UTC' } }, /body\.quietHours\.end must differ from quietHours\.start/],
    ['an unknown time zone', { quietHours: { start: '22:00', end: '07:00', timeZone: 'Mars/Olympus_Mons' } }, /body\.quietHours\.timeZone "Mars\/Olympus_Mons" is not an IANA time zone/],
    ['a bad time of day', { quietHours: { start: '25:00', end: '07:00', timeZone: 'UTC' } }, /body\.quietHours\.start must match pattern/],
    ['typing.minMs above typing.maxMs', { typing: { minMs: 5_000, maxMs: 1_000 } }, /body\.typing\.minMs \(5000\) must not exceed typing\.maxMs \(1000\)/],
    ['a negative gap', { minGapMs: -1 }, /body\.minGapMs must be >= 0/],
    ['perMinute 0 (could never send)', { perMinute: 0 }, /body\.perMinute must be >= 1/],
    ['an unknown member', { burst: 5 }, /body\.burst is not allowed/],
    ['an empty policy', {}, /body must NOT have fewer than 1 properties/],
  ];
  for (const [what, policy, message] of policies) {
    it(`policy with ${what}: 400 naming the field, the policy unchanged`, async () => {
      const before = await p.t.request('GET', `/${p.alice.key}/queue/policy`);
      const res = await p.t.request('PUT', `/${p.alice.key}/queue/policy`, policy);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.match(res.body.error.message, message);
      assert.deepEqual((await p.t.request('GET', `/${p.alice.key}/queue/policy`)).body, before.body);
    });
  }

  it('nothing reached the receiving phone', async () => {
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(textsAt(p, p.bob), []);
  });

  it('queue routes need the instance key: 404 for an unknown one, with no data', async () => {
    for (const [method, path] of [['GET', '/queue'], ['POST', '/queue/pause'], ['GET', '/queue/policy'], ['DELETE', '/queue/3EB0AA']]) {
      const res = await p.t.request(method!, `/not-a-key${path}`);
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.data, undefined);
    }
  });
});

/** With `queue.enabled` false sends go out at once, as before the queue; the queue's options and routes say why they cannot work. */
describe('outbound queue turned off', () => {
  let p: MessagingPair;

  before(async () => {
    p = await MessagingPair.start({ config: { queue: { ...TEST_QUEUE, enabled: false } } }, ['5511963000011', '5511963000012']);
  });
  after(async () => {
    await p.stop();
  });

  it('sends at once; delay and sendAt answer 400, the queue routes 409 queue_disabled', async () => {
    const sent = await sendText(p, p.alice, p.bob, 'direct');
    assert.equal(sent.status, 200);
    assert.equal(sent.body.data.queue, undefined);
    await p.t.waitFor(() => textsAt(p, p.bob).length === 1, 5000, 'the direct text');
    const delayed = await sendText(p, p.alice, p.bob, 'later', { delay: 1000 });
    assert.equal(delayed.status, 400);
    assert.match(delayed.body.error.message, /^body\.delay needs the outbound queue/);
    for (const [method, path] of [['GET', '/queue'], ['POST', '/queue/pause'], ['DELETE', '/queue/3EB0AA']]) {
      const res = await p.t.request(method!, `/${p.alice.key}${path}`);
      assert.equal(res.status, 409, `${method} ${path}`);
      assert.equal(res.body.error.code, 'queue_disabled');
    }
  });
});
