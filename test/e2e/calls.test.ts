import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventsOf, jidOf, phone, startWithPhones, type Phone } from '../support/conversation.js';
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

  const offer = async (from: Phone, to: string, extra: Record<string, unknown> = {}) => {
    const res = await t.request('POST', `/${from.key}/call`, { to, ...extra });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.data.callId as string;
  };

  it('places a call: the callee gets an offer, the caller hears it ringing', async () => {
    const res = await t.request('POST', `/${alice.key}/call`, { to: BOB });
    assert.equal(res.status, 200);
    const { callId } = res.body.data;
    assert.match(callId, /^[0-9A-F]{32}$/);
    assert.deepEqual(res.body, { status: 200, data: { callId, peerJid: jidOf(BOB) } });
    await t.waitFor(() => callEvents(alice, callId).length === 1, 5000, 'ringing');
    assert.deepEqual(callEvents(bob, callId), [peer(ALICE, 'offer')]);
    assert.deepEqual(callEvents(alice, callId), [peer(BOB, 'ringing')]);
  });

  it('accepts a call and ends it: both sides see accept, then terminate', async () => {
    const callId = await offer(alice, BOB);
    await t.waitFor(() => callEvents(bob, callId).length === 1, 5000, 'the offer');
    const accepted = await t.request('POST', `/${bob.key}/call/accept`, { callId, callFrom: ALICE });
    assert.deepEqual(accepted.body, { status: 200, data: { callId, peerJid: jidOf(ALICE), status: 'accept' } });
    await t.waitFor(() => callEvents(alice, callId).length === 2, 5000, 'the caller to hear the answer');
    assert.deepEqual(callEvents(alice, callId), [peer(BOB, 'ringing'), peer(BOB, 'accept')]);

    const twice = await t.request('POST', `/${bob.key}/call/accept`, { callId, callFrom: jidOf(ALICE) });
    assert.equal(twice.status, 409);
    assert.equal(twice.body.error.code, 'call_not_ringing');

    const ended = await t.request('POST', `/${alice.key}/call/end`, { callId, peerJid: jidOf(BOB) });
    assert.deepEqual(ended.body, { status: 200, message: `Call ${callId} ended` });
    await t.waitFor(() => callEvents(bob, callId).length === 3, 5000, 'the callee to hear the end');
    assert.deepEqual(callEvents(bob, callId), [peer(ALICE, 'offer'), peer(ALICE, 'accept'), peer(ALICE, 'terminate')]);
    assert.deepEqual(callEvents(alice, callId), [peer(BOB, 'ringing'), peer(BOB, 'accept'), peer(BOB, 'terminate')]);

    for (const [who, other] of [[alice, BOB], [bob, ALICE]] as const) {
      const gone = await t.request('POST', `/${who.key}/call/end`, { callId, peerJid: other });
      assert.equal(gone.status, 404);
      assert.equal(gone.body.error.code, 'call_not_found');
    }
  });

  it('rejects an incoming call: both sides see reject and the call is gone', async () => {
    const callId = await offer(alice, BOB, { isVideo: true });
    await t.waitFor(() => callEvents(alice, callId).length === 1, 5000, 'ringing');
    assert.deepEqual(callEvents(bob, callId), [peer(ALICE, 'offer', true)]);
    const rejected = await t.request('DELETE', `/${bob.key}/call/${callId}/${ALICE}`);
    assert.deepEqual(rejected.body, { status: 200, message: `Call ${callId} rejected` });
    await t.waitFor(() => callEvents(alice, callId).length === 2, 5000, 'the caller to hear the rejection');
    assert.deepEqual(callEvents(alice, callId), [peer(BOB, 'ringing', true), peer(BOB, 'reject', true)]);
    assert.deepEqual(callEvents(bob, callId), [peer(ALICE, 'offer', true), peer(ALICE, 'reject', true)]);
    const again = await t.request('DELETE', `/${bob.key}/call/${callId}/${ALICE}`);
    assert.equal(again.status, 404);
    const accept = await t.request('POST', `/${bob.key}/call/accept`, { callId, callFrom: ALICE });
    assert.equal(accept.status, 404);
    assert.equal(accept.body.error.code, 'call_not_found');
  });

  it('lets the caller cancel a call that is still ringing', async () => {
    const callId = await offer(bob, ALICE);
    await t.waitFor(() => callEvents(bob, callId).length === 1, 5000, 'ringing');
    assert.equal((await t.request('POST', `/${bob.key}/call/end`, { callId, peerJid: ALICE })).status, 200);
    await t.waitFor(() => callEvents(alice, callId).length === 2, 5000, 'the callee to hear the cancel');
    assert.deepEqual(callEvents(alice, callId), [peer(BOB, 'offer'), peer(BOB, 'terminate')]);
    // The caller cannot answer its own call.
    const own = await offer(bob, ALICE);
    await t.waitFor(() => callEvents(bob, own).length === 1, 5000, 'ringing');
    assert.equal((await t.request('POST', `/${bob.key}/call/accept`, { callId: own, callFrom: ALICE })).status, 404);
    assert.equal((await t.request('POST', `/${bob.key}/call/end`, { callId: own, peerJid: ALICE })).status, 200);
  });

  it('never rings a phone that blocked the caller, and refuses to call a blocked number', async () => {
    assert.equal((await t.request('PATCH', `/${bob.key}/contacts/${ALICE}?action=block`)).status, 200);
    const callId = await offer(alice, BOB);
    await t.settle();
    assert.deepEqual(callEvents(bob, callId), []);
    assert.deepEqual(callEvents(alice, callId), []);
    const refused = await t.request('POST', `/${bob.key}/call`, { to: ALICE });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, 'contact_blocked');
    assert.equal((await t.request('POST', `/${alice.key}/call/end`, { callId, peerJid: BOB })).status, 200);
    assert.equal((await t.request('PATCH', `/${bob.key}/contacts/${ALICE}?action=unblock`)).status, 200);
  });

  it('rejects bad input and emits nothing', async () => {
    const callId = await offer(alice, BOB);
    await t.waitFor(() => callEvents(alice, callId).length === 1, 5000, 'ringing');
    const eventCount = t.events.length;
    const cases: [string, string, unknown, number, string][] = [
      ['POST', `/${alice.key}/call`, {}, 400, 'body.to is required'],
      ['POST', `/${alice.key}/call`, { to: 5511920000002 }, 400, 'body.to must be string'],
      ['POST', `/${alice.key}/call`, { to: 'abc' }, 400, 'body.to must be a phone number with country code (6 to 15 digits) or a JID'],
      ['POST', `/${alice.key}/call`, { to: '120363000000000001@g.us' }, 400, 'body.to must be a phone number or a contact JID, not a group or broadcast'],
      ['POST', `/${alice.key}/call`, { to: ALICE }, 400, 'body.to cannot be the instance\'s own number'],
      ['POST', `/${alice.key}/call`, { to: BOB, isVideo: 'yes' }, 400, 'body.isVideo must be boolean'],
      ['POST', `/${alice.key}/call`, { to: BOB, ring: true }, 400, 'body.ring is not allowed'],
      ['POST', `/${alice.key}/call`, { to: '5511920009999' }, 404, 'number 5511920009999 on the sandbox network not found'],
      ['POST', `/${bob.key}/call/accept`, { callId }, 400, 'body.callFrom is required'],
      ['POST', `/${bob.key}/call/accept`, { callId: 'NOPE', callFrom: ALICE }, 404, `incoming call NOPE from ${ALICE} not found`],
      ['POST', `/${bob.key}/call/accept`, { callId, callFrom: '5511920000003' }, 404, `incoming call ${callId} from 5511920000003 not found`],
      ['DELETE', `/${bob.key}/call/${callId}/not-a-number`, undefined, 400, 'path.callFrom must be a phone number with country code (6 to 15 digits) or a JID'],
      ['DELETE', `/${bob.key}/call/NOPE/${ALICE}`, undefined, 404, `incoming call NOPE from ${ALICE} not found`],
      ['POST', `/${alice.key}/call/end`, { callId }, 400, 'body.peerJid is required'],
      ['POST', `/${alice.key}/call/end`, { callId: 'NOPE', peerJid: BOB }, 404, `call NOPE with ${BOB} not found`],
    ];
    for (const [method, path, body, status, message] of cases) {
      const res = await t.request(method, path, body);
      assert.equal(res.status, status, `${method} ${path} ${JSON.stringify(body)}`);
      assert.equal(res.body.error.message, message);
    }
    await t.settle();
    assert.equal(t.events.length, eventCount);
    // The call is still ringing and can be answered.
    assert.equal((await t.request('POST', `/${bob.key}/call/accept`, { callId, callFrom: ALICE })).status, 200);
    assert.equal((await t.request('POST', `/${bob.key}/call/end`, { callId, peerJid: ALICE })).status, 200);
  });

  it('answers 409 while not connected and emits nothing', async () => {
    const carol = await phone(t, 'carol', '5511920000003');
    const callId = await offer(alice, carol.number);
    await t.waitFor(() => callEvents(carol, callId).length === 1, 5000, 'the offer');
    assert.equal((await t.request('DELETE', `/${carol.key}/instance`)).status, 200);
    await t.settle();
    const eventCount = t.events.length;
    for (const [method, path, body] of [
      ['POST', `/${carol.key}/call`, { to: ALICE }],
      ['POST', `/${carol.key}/call/accept`, { callId, callFrom: ALICE }],
      ['DELETE', `/${carol.key}/call/${callId}/${ALICE}`, undefined],
      ['POST', `/${carol.key}/call/end`, { callId, peerJid: ALICE }],
    ] as const) {
      const res = await t.request(method, path, body);
      assert.equal(res.status, 409, `${method} ${path}`);
      assert.equal(res.body.error.code, 'not_connected');
    }
    await t.settle();
    assert.equal(t.events.length, eventCount);
  });
});
