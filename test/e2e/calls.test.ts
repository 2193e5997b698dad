import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiError } from '../support/api-error.js';
import { callStatuses, eventsOf, jidOf, phone, placeCall, startWithPhones, type Phone, type PlacedCall } from '../support/conversation.js';
import type { TestServer } from '../support/test-server.js';

const ALICE = '5511920000001';
const BOB = '5511920000002';

interface CallEvent {
  callId: string;
  from: string;
  fromJid: string;
  status: string;
  isVideo: boolean;
  isGroup: boolean;
  timestamp: number;
}

describe('calls (spec 4.6)', () => {
  let t: TestServer;
  let alice: Phone;
  let bob: Phone;

  before(async () => {
    ({ t, phones: { alice, bob } } = await startWithPhones({ alice: ALICE, bob: BOB }));
  });
  after(() => t.stop());

  /** The `call` events of one call on one phone, without timestamps (checked separately). */
  const callEvents = (p: Phone, callId: string) =>
    eventsOf<CallEvent>(t, p.id, 'call').filter((e) => e.callId === callId).map(({ status, from, fromJid, isVideo, isGroup, timestamp }) => {
      assert.ok(Number.isInteger(timestamp) && timestamp > 1_600_000_000);
      return { status, from, fromJid, isVideo, isGroup };
    });
  const peer = (number: string, status: string, isVideo = false) => ({ status, from: number, fromJid: jidOf(number), isVideo, isGroup: false });

  const offer = async (from: Phone, to: string, extra: { isVideo?: boolean } = {}) => {
    const res = await t.client(from.key).call('placeCall', { body: { to, ...extra } });
    assert.equal(res.status, 200, JSON.stringify(res));
    return res.data.callId;
  };

  it('places a call: the callee gets an offer, the caller hears it ringing', async () => {
    const res = await t.client(alice.key).call('placeCall', { body: { to: BOB } });
    assert.equal(res.status, 200);
    const { callId } = res.data;
    assert.match(callId, /^[0-9A-F]{32}$/);
    assert.deepEqual(res, { status: 200, data: { callId, peerJid: jidOf(BOB) } });
    await t.waitFor(() => callEvents(alice, callId).length === 1, 5000, 'ringing');
    assert.deepEqual(callEvents(bob, callId), [peer(ALICE, 'offer')]);
    assert.deepEqual(callEvents(alice, callId), [peer(BOB, 'ringing')]);
  });

  it('accepts a call and ends it: both sides see accept, then terminate', async () => {
    const callId = await offer(alice, BOB);
    await t.waitFor(() => callEvents(bob, callId).length === 1, 5000, 'the offer');
    const accepted = await t.client(bob.key).call('acceptCall', { body: { callId, callFrom: ALICE } });
    assert.deepEqual(accepted, { status: 200, data: { callId, peerJid: jidOf(ALICE), status: 'accept' } });
    await t.waitFor(() => callEvents(alice, callId).length === 2, 5000, 'the caller to hear the answer');
    assert.deepEqual(callEvents(alice, callId), [peer(BOB, 'ringing'), peer(BOB, 'accept')]);

    await assert.rejects(t.client(bob.key).call('acceptCall', { body: { callId, callFrom: jidOf(ALICE) } }), apiError(409, 'call_not_ringing'));

    const ended = await t.client(alice.key).call('endCall', { body: { callId, peerJid: jidOf(BOB) } });
    assert.deepEqual(ended, { status: 200, message: `Call ${callId} ended` });
    await t.waitFor(() => callEvents(bob, callId).length === 3, 5000, 'the callee to hear the end');
    assert.deepEqual(callEvents(bob, callId), [peer(ALICE, 'offer'), peer(ALICE, 'accept'), peer(ALICE, 'terminate')]);
    assert.deepEqual(callEvents(alice, callId), [peer(BOB, 'ringing'), peer(BOB, 'accept'), peer(BOB, 'terminate')]);

    for (const [who, other] of [[alice, BOB], [bob, ALICE]] as const) {
      await assert.rejects(t.client(who.key).call('endCall', { body: { callId, peerJid: other } }), apiError(404, 'call_not_found'));
    }
  });

  it('rejects an incoming call: both sides see reject and the call is gone', async () => {
    const callId = await offer(alice, BOB, { isVideo: true });
    await t.waitFor(() => callEvents(alice, callId).length === 1, 5000, 'ringing');
    assert.deepEqual(callEvents(bob, callId), [peer(ALICE, 'offer', true)]);
    const rejected = await t.client(bob.key).call('rejectCall', { params: { callId, callFrom: ALICE } });
    assert.deepEqual(rejected, { status: 200, message: `Call ${callId} rejected` });
    await t.waitFor(() => callEvents(alice, callId).length === 2, 5000, 'the caller to hear the rejection');
    assert.deepEqual(callEvents(alice, callId), [peer(BOB, 'ringing', true), peer(BOB, 'reject', true)]);
    assert.deepEqual(callEvents(bob, callId), [peer(ALICE, 'offer', true), peer(ALICE, 'reject', true)]);
    await assert.rejects(t.client(bob.key).call('rejectCall', { params: { callId, callFrom: ALICE } }), apiError(404, 'call_not_found'));
    await assert.rejects(t.client(bob.key).call('acceptCall', { body: { callId, callFrom: ALICE } }), apiError(404, 'call_not_found'));
  });

  it('lets the caller cancel a call that is still ringing', async () => {
    const callId = await offer(bob, ALICE);
    await t.waitFor(() => callEvents(bob, callId).length === 1, 5000, 'ringing');
    assert.equal((await t.client(bob.key).call('endCall', { body: { callId, peerJid: ALICE } })).status, 200);
    await t.waitFor(() => callEvents(alice, callId).length === 2, 5000, 'the callee to hear the cancel');
    assert.deepEqual(callEvents(alice, callId), [peer(BOB, 'offer'), peer(BOB, 'terminate')]);
    // The caller cannot answer its own call.
    const own = await offer(bob, ALICE);
    await t.waitFor(() => callEvents(bob, own).length === 1, 5000, 'ringing');
    await assert.rejects(t.client(bob.key).call('acceptCall', { body: { callId: own, callFrom: ALICE } }), apiError(404, 'call_not_found'));
    assert.equal((await t.client(bob.key).call('endCall', { body: { callId: own, peerJid: ALICE } })).status, 200);
  });

  it('never rings a phone that blocked the caller, and refuses to call a blocked number', async () => {
    assert.equal((await t.client(bob.key).call('blockContact', { params: { number: ALICE }, query: { action: 'block' } })).status, 200);
    const callId = await offer(alice, BOB);
    await t.settle();
    assert.deepEqual(callEvents(bob, callId), []);
    assert.deepEqual(callEvents(alice, callId), []);
    await assert.rejects(t.client(bob.key).call('placeCall', { body: { to: ALICE } }), apiError(409, 'contact_blocked'));
    assert.equal((await t.client(alice.key).call('endCall', { body: { callId, peerJid: BOB } })).status, 200);
    assert.equal((await t.client(bob.key).call('blockContact', { params: { number: ALICE }, query: { action: 'unblock' } })).status, 200);
  });

  it('rejects bad input and emits nothing', async () => {
    const callId = await offer(alice, BOB);
    await t.waitFor(() => callEvents(alice, callId).length === 1, 5000, 'ringing');
    const eventCount = t.events.length;
    // Bodies the typed client refuses at compile time (missing members, wrong types, unknown members): sent raw.
    const raw: [string, string, unknown, number, string][] = [
      ['POST', `/${alice.key}/call`, {}, 400, 'body.to is required'],
      ['POST', `/${alice.key}/call`, { to: 5511920000002 }, 400, 'body.to must be string'],
      ['POST', `/${alice.key}/call`, { to: BOB, isVideo: 'yes' }, 400, 'body.isVideo must be boolean'],
      ['POST', `/${alice.key}/call`, { to: BOB, ring: true }, 400, 'body.ring is not allowed'],
      ['POST', `/${bob.key}/call/accept`, { callId }, 400, 'body.callFrom is required'],
      ['POST', `/${alice.key}/call/end`, { callId }, 400, 'body.peerJid is required'],
    ];
    for (const [method, path, body, status, message] of raw) {
      const res = await t.request(method, path, body);
      assert.equal(res.status, status, `${method} ${path} ${JSON.stringify(body)}`);
      assert.equal(res.body.error.message, message);
    }
    const a = t.client(alice.key);
    const b = t.client(bob.key);
    const typed: [string, () => Promise<unknown>, number, string, string][] = [
      ['to abc', () => a.call('placeCall', { body: { to: 'abc' } }), 400, 'validation_failed', 'body.to must be a phone number with country code (6 to 15 digits) or a JID'],
      ['to a group', () => a.call('placeCall', { body: { to: '120363000000000001@g.us' } }), 400, 'validation_failed', 'body.to must be a phone number or a contact JID, not a group or broadcast'],
      ['to itself', () => a.call('placeCall', { body: { to: ALICE } }), 400, 'validation_failed', 'body.to cannot be the instance\'s own number'],
      ['to an unknown number', () => a.call('placeCall', { body: { to: '5511920009999' } }), 404, 'number_not_registered', 'number 5511920009999 on the sandbox network not found'],
      ['accept NOPE', () => b.call('acceptCall', { body: { callId: 'NOPE', callFrom: ALICE } }), 404, 'call_not_found', `incoming call NOPE from ${ALICE} not found`],
      ['accept from carol', () => b.call('acceptCall', { body: { callId, callFrom: '5511920000003' } }), 404, 'call_not_found', `incoming call ${callId} from 5511920000003 not found`],
      ['reject from not-a-number', () => b.call('rejectCall', { params: { callId, callFrom: 'not-a-number' } }), 400, 'validation_failed', 'path.callFrom must be a phone number with country code (6 to 15 digits) or a JID'],
      ['reject NOPE', () => b.call('rejectCall', { params: { callId: 'NOPE', callFrom: ALICE } }), 404, 'call_not_found', `incoming call NOPE from ${ALICE} not found`],
      ['end NOPE', () => a.call('endCall', { body: { callId: 'NOPE', peerJid: BOB } }), 404, 'call_not_found', `call NOPE with ${BOB} not found`],
    ];
    for (const [what, call, status, code, message] of typed) {
      await assert.rejects(call(), apiError(status, code, message), what);
    }
    await t.settle();
    assert.equal(t.events.length, eventCount);
    // The call is still ringing and can be answered.
    assert.equal((await b.call('acceptCall', { body: { callId, callFrom: ALICE } })).status, 200);
    assert.equal((await b.call('endCall', { body: { callId, peerJid: ALICE } })).status, 200);
  });

  it('answers 409 while not connected and emits nothing', async () => {
    const carol = await phone(t, 'carol', '5511920000003');
    const callId = await offer(alice, carol.number);
    await t.waitFor(() => callEvents(carol, callId).length === 1, 5000, 'the offer');
    const c = t.client(carol.key);
    assert.equal((await c.call('logoutInstance')).status, 200);
    await t.settle();
    const eventCount = t.events.length;
    const calls: [string, () => Promise<unknown>][] = [
      ['placeCall', () => c.call('placeCall', { body: { to: ALICE } })],
      ['acceptCall', () => c.call('acceptCall', { body: { callId, callFrom: ALICE } })],
      ['rejectCall', () => c.call('rejectCall', { params: { callId, callFrom: ALICE } })],
      ['endCall', () => c.call('endCall', { body: { callId, peerJid: ALICE } })],
    ];
    for (const [what, call] of calls) {
      await assert.rejects(call(), apiError(409, 'not_connected'), what);
    }
    await t.settle();
    assert.equal(t.events.length, eventCount);
  });
});

/** Ring time of the calls nobody answers: long enough to log out or delete the caller while it rings. */
const RING_MS = 800;

describe('calls nobody answers (sandbox callRingMs)', () => {
  let t: TestServer;
  let alice: Phone;
  let bob: Phone;

  before(async () => {
    ({ t, phones: { alice, bob } } = await startWithPhones({ alice: ALICE, bob: BOB }, { sandbox: { callRingMs: RING_MS } }));
  });
  after(() => t.stop());

  const statuses = (p: Phone, callId: string) => callStatuses(t, p, callId);
  /** Long enough after a deadline for a second time-out (a timer, a signal) to show. */
  const pastRingTime = () => new Promise((resolve) => setTimeout(resolve, RING_MS + 200));

  /** The caller went away while the call still rang: its time-out cannot have fired yet. */
  const assertStillRinging = (call: PlacedCall) => assert.ok(Date.now() < call.sentAt + RING_MS, 'the caller went away before the ring time ran out');

  /**
   * The callee's phone times the call out on its own at the call's deadline, exactly once, and can
   * no longer answer it.
   */
  const assertCalleeTimesOut = async (caller: Phone, call: PlacedCall) => {
    await t.waitFor(() => statuses(bob, call.callId).includes('timeout'), 5000, 'the callee to see the time-out');
    const timedOutAt = Date.now();
    assert.ok(timedOutAt >= call.sentAt + RING_MS, 'not before the ring time ran out');
    assert.ok(timedOutAt < call.answeredAt + RING_MS + 500, 'at the deadline');
    await pastRingTime();
    await t.settle();
    assert.deepEqual(statuses(bob, call.callId), ['offer', 'timeout']);
    await assert.rejects(t.client(bob.key).call('acceptCall', { body: { callId: call.callId, callFrom: caller.number } }), apiError(404, 'call_not_found'));
    await assert.rejects(t.client(bob.key).call('rejectCall', { params: { callId: call.callId, callFrom: caller.number } }), apiError(404, 'call_not_found'));
  };

  it('stops ringing after the ring time: both phones report timeout once and the call is gone', async () => {
    const { callId } = await placeCall(t, alice, bob);
    await t.waitFor(() => statuses(bob, callId).length === 2, 5000, 'the callee to see the time-out');
    await t.waitFor(() => statuses(alice, callId).length === 2, 5000, 'the caller to see the time-out');
    await pastRingTime();
    await t.settle();
    assert.deepEqual(statuses(alice, callId), ['ringing', 'timeout']);
    assert.deepEqual(statuses(bob, callId), ['offer', 'timeout']);
    await assert.rejects(t.client(bob.key).call('acceptCall', { body: { callId, callFrom: ALICE } }), apiError(404, 'call_not_found'));
    await assert.rejects(t.client(alice.key).call('endCall', { body: { callId, peerJid: BOB } }), apiError(404, 'call_not_found'));
  });

  it('does not time out a call that was answered', async () => {
    const { callId } = await placeCall(t, alice, bob);
    await t.waitFor(() => statuses(bob, callId).length === 1, 5000, 'the offer');
    await t.client(bob.key).call('acceptCall', { body: { callId, callFrom: ALICE } });
    await pastRingTime();
    await t.settle();
    assert.deepEqual(statuses(alice, callId), ['ringing', 'accept']);
    assert.deepEqual(statuses(bob, callId), ['offer', 'accept']);
    assert.equal((await t.client(alice.key).call('endCall', { body: { callId, peerJid: BOB } })).status, 200);
  });

  it('a caller that logs out: the callee still times out at the deadline; back online, the caller times out its call once', async () => {
    const carol = await phone(t, 'carol', '5511920000003');
    const c = t.client(carol.key);
    const call = await placeCall(t, carol, bob);
    assert.equal((await c.call('logoutInstance')).status, 200);
    assertStillRinging(call);
    await assertCalleeTimesOut(carol, call);
    assert.deepEqual(statuses(carol, call.callId), ['ringing'], 'a logged-out caller times out nothing');

    await c.call('connectInstance');
    await c.call('sandbox_post_key_scan');
    await t.waitFor(() => statuses(carol, call.callId).length === 2, 5000, 'the caller to see the time-out');
    await t.settle();
    // The caller's time-out signal reaches a callee that no longer knows the call: ignored.
    assert.deepEqual([statuses(carol, call.callId), statuses(bob, call.callId)], [['ringing', 'timeout'], ['offer', 'timeout']]);
    await assert.rejects(c.call('endCall', { body: { callId: call.callId, peerJid: BOB } }), apiError(404, 'call_not_found'));
  });

  it('a deleted caller reports and stores nothing; the callee still times out at the deadline', async () => {
    const dave = await phone(t, 'dave', '5511920000004');
    const call = await placeCall(t, dave, bob);
    assert.equal((await t.client().call('adminDeleteInstance', { params: { key: dave.id } })).status, 200);
    assertStillRinging(call);
    const eventCount = eventsOf(t, dave.id, 'call').length;
    await assertCalleeTimesOut(dave, call);
    assert.equal(eventsOf(t, dave.id, 'call').length, eventCount);
    // Deleting an instance clears its state; a late time-out must not write its calls back.
    assert.equal(await t.server.context.storage.state.get(`${dave.id}:sandbox`, 'calls'), null);
  });
});
