import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { deliverText, jidOf, startWithPhones, type Phone } from '../support/conversation.js';
import type { TestServer } from '../support/test-server.js';

const ALICE = '5511950000001';
const BOB = '5511950000002';
const CAROL = '5511950000003';
const UNKNOWN = '5511950009999';

describe('contacts (spec 4.9)', () => {
  let t: TestServer;
  let alice: Phone;
  let bob: Phone;
  let carol: Phone;
  let aliceLid: string;

  before(async () => {
    ({ t, phones: { alice, bob, carol } } = await startWithPhones({ alice: ALICE, bob: BOB, carol: CAROL }));
    aliceLid = (await t.request('GET', `/${alice.key}/instance`)).body.instance.user.lid;
  });
  after(() => t.stop());

  const contacts = async (p: Phone) => (await t.request('GET', `/${p.key}/contacts`)).body.data;
  const blocked = async (p: Phone) => (await t.request('GET', `/${p.key}/contacts/blocked`)).body.data;
  const inboxTotal = async (p: Phone, from: string) => (await t.request('GET', `/${p.key}/chat/${from}/messages`)).body.total;
  const sessions = (p: Phone) => t.server.context.storage.state.get<Record<string, { establishedAt: number }>>(`${p.id}:sandbox`, 'sessions');

  it('lists the contacts the instance heard from, and gets one', async () => {
    assert.deepEqual((await t.request('GET', `/${bob.key}/contacts`)).body, { status: 200, data: [] });
    await deliverText(t, alice, bob, 'hi bob');
    assert.deepEqual(await contacts(bob), [{ id: jidOf(ALICE), name: '', notify: 'alice' }]);
    assert.deepEqual((await t.request('GET', `/${bob.key}/contacts/${ALICE}`)).body, {
      status: 200, data: { id: jidOf(ALICE), name: '', notify: 'alice' },
    });
    const unknown = await t.request('GET', `/${bob.key}/contacts/${CAROL}`);
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.body.error, { code: 'contact_not_found', message: `contact ${jidOf(CAROL)} not found` });
  });

  it('saves a contact through the channel: name and LID show in the list', async () => {
    const res = await t.request('POST', `/${bob.key}/contacts`, { number: ALICE, name: 'Alice Smith' });
    assert.deepEqual(res.body, { status: 200, data: { id: jidOf(ALICE), name: 'Alice Smith', notify: 'alice', lid: aliceLid } });
    const carolSaved = await t.request('POST', `/${bob.key}/contacts`, { number: jidOf(CAROL), name: 'Carol' });
    assert.equal(carolSaved.status, 200);
    assert.deepEqual((await contacts(bob)).map((c: { id: string; name: string }) => [c.id, c.name]), [[jidOf(ALICE), 'Alice Smith'], [jidOf(CAROL), 'Carol']]);
    // A number without an account can be saved too (as on a phone), without a LID.
    const offNetwork = await t.request('POST', `/${bob.key}/contacts`, { number: UNKNOWN, name: 'Landline' });
    assert.deepEqual(offNetwork.body.data, { id: jidOf(UNKNOWN), name: 'Landline', notify: '' });
  });

  it('removes a contact through the channel: it leaves the list', async () => {
    const res = await t.request('DELETE', `/${bob.key}/contacts/${UNKNOWN}`);
    assert.deepEqual(res.body, { status: 200, message: `Contact ${jidOf(UNKNOWN)} removed` });
    assert.equal((await t.request('GET', `/${bob.key}/contacts/${UNKNOWN}`)).status, 404);
    assert.deepEqual((await contacts(bob)).map((c: { id: string }) => c.id), [jidOf(ALICE), jidOf(CAROL)]);
    const again = await t.request('DELETE', `/${bob.key}/contacts/${UNKNOWN}`);
    assert.equal(again.status, 404);
    assert.equal(again.body.error.code, 'contact_not_found');
  });

  it('blocks a contact: it is listed and its messages no longer arrive', async () => {
    const res = await t.request('PATCH', `/${bob.key}/contacts/${ALICE}?action=block`);
    assert.deepEqual(res.body, { status: 200, data: { jid: jidOf(ALICE), blocked: true } });
    assert.deepEqual((await t.request('GET', `/${bob.key}/contacts/blocked`)).body, { status: 200, data: [jidOf(ALICE)] });

    const before = await inboxTotal(bob, ALICE);
    const sent = await t.request('POST', `/${alice.key}/message/text`, { to: BOB, text: 'are you there?' });
    assert.equal(sent.status, 200);
    await t.waitFor(async () => {
      const record = (await t.request('GET', `/${alice.key}/chat/${BOB}/messages`)).body.data[0];
      return record.key.id === sent.body.data.key.id && record.status === 'SERVER_ACK';
    }, 5000, 'the sent status');
    await t.settle();
    assert.equal(await inboxTotal(bob, ALICE), before);
    // One tick only: a blocked sender never gets a delivery receipt.
    const record = (await t.request('GET', `/${alice.key}/chat/${BOB}/messages`)).body.data[0];
    assert.deepEqual([record.key.id, record.status], [sent.body.data.key.id, 'SERVER_ACK']);

    const unblocked = await t.request('PATCH', `/${bob.key}/contacts/${jidOf(ALICE)}?action=unblock`);
    assert.deepEqual(unblocked.body, { status: 200, data: { jid: jidOf(ALICE), blocked: false } });
    assert.deepEqual(await blocked(bob), []);
    await deliverText(t, alice, bob, 'now?');
    assert.equal(await inboxTotal(bob, ALICE), before + 1);
  });

  it('answers a contact\'s about text, hidden from phones it blocked', async () => {
    const none = await t.request('GET', `/${bob.key}/contacts/${CAROL}/status`);
    assert.deepEqual(none.body, { status: 200, data: { jid: jidOf(CAROL), status: null } });
    const setAt = Math.floor(Date.now() / 1000);
    assert.equal((await t.request('PUT', `/${carol.key}/instance/status`, { text: 'Out fishing' })).status, 200);
    const res = await t.request('GET', `/${bob.key}/contacts/${CAROL}/status`);
    assert.deepEqual(Object.keys(res.body.data), ['jid', 'status', 'setAt']);
    assert.equal(res.body.data.jid, jidOf(CAROL));
    assert.equal(res.body.data.status, 'Out fishing');
    assert.ok(res.body.data.setAt >= setAt && res.body.data.setAt <= Math.floor(Date.now() / 1000));

    assert.equal((await t.request('PATCH', `/${carol.key}/contacts/${BOB}?action=block`)).status, 200);
    assert.deepEqual((await t.request('GET', `/${bob.key}/contacts/${CAROL}/status`)).body.data, { jid: jidOf(CAROL), status: null });
    assert.equal((await t.request('GET', `/${alice.key}/contacts/${CAROL}/status`)).body.data.status, 'Out fishing');
    assert.equal((await t.request('PATCH', `/${carol.key}/contacts/${BOB}?action=unblock`)).status, 200);
  });

  it('clears the session with a contact; the next message establishes a new one', async () => {
    const established = (await sessions(bob))?.[ALICE];
    assert.ok(established && Number.isInteger(established.establishedAt));
    const res = await t.request('DELETE', `/${bob.key}/contacts/${ALICE}/session`);
    assert.deepEqual(res.body, { status: 200, message: `Session with ${jidOf(ALICE)} cleared` });
    assert.equal((await sessions(bob))?.[ALICE], undefined);
    // Chats, messages and the contact stay.
    assert.ok((await t.request('GET', `/${bob.key}/contacts/${ALICE}`)).status === 200);
    assert.ok((await inboxTotal(bob, ALICE)) > 0);
    await deliverText(t, alice, bob, 'new session');
    assert.ok((await sessions(bob))?.[ALICE]);
  });

  it('resolves LIDs of sandbox numbers and answers null for unknown ones', async () => {
    const unknownLid = '100000000000001@lid';
    const res = await t.request('POST', `/${bob.key}/contacts/resolve-lids`, { lids: [aliceLid, unknownLid] });
    assert.deepEqual(res.body, { status: 200, data: [{ lid: aliceLid, jid: jidOf(ALICE) }, { lid: unknownLid, jid: null }] });
  });

  it('rejects bad input and unknown numbers, changing nothing', async () => {
    const before = { contacts: await contacts(bob), blocked: await blocked(bob) };
    const cases: [string, string, unknown, number, string][] = [
      ['POST', `/${bob.key}/contacts`, { number: ALICE }, 400, 'body.name is required'],
      ['POST', `/${bob.key}/contacts`, { name: 'X' }, 400, 'body.number is required'],
      ['POST', `/${bob.key}/contacts`, { number: ALICE, name: 5 }, 400, 'body.name must be string'],
      ['POST', `/${bob.key}/contacts`, { number: ALICE, name: '' }, 400, 'body.name must NOT have fewer than 1 characters'],
      ['POST', `/${bob.key}/contacts`, { number: 'abc', name: 'X' }, 400, 'body.number must be a phone number with country code (6 to 15 digits) or a JID'],
      ['POST', `/${bob.key}/contacts`, { number: '120363000000000001@g.us', name: 'X' }, 400, 'body.number must be a phone number or a contact JID, not a group or broadcast'],
      ['GET', `/${bob.key}/contacts/abc`, undefined, 400, 'path.number must be a phone number with country code (6 to 15 digits) or a JID'],
      ['PATCH', `/${bob.key}/contacts/${ALICE}?action=mute`, undefined, 400, 'query.action must be one of "block", "unblock"'],
      ['PATCH', `/${bob.key}/contacts/${ALICE}`, undefined, 400, 'query.action is required'],
      ['PATCH', `/${bob.key}/contacts/${UNKNOWN}?action=block`, undefined, 404, `number ${UNKNOWN} on the sandbox network not found`],
      ['PATCH', `/${bob.key}/contacts/${BOB}?action=block`, undefined, 400, 'path.number cannot be the instance\'s own number'],
      ['GET', `/${bob.key}/contacts/${UNKNOWN}/status`, undefined, 404, `number ${UNKNOWN} on the sandbox network not found`],
      ['DELETE', `/${bob.key}/contacts/${UNKNOWN}/session`, undefined, 404, `number ${UNKNOWN} on the sandbox network not found`],
      ['POST', `/${bob.key}/contacts/resolve-lids`, {}, 400, 'body.lids is required'],
      ['POST', `/${bob.key}/contacts/resolve-lids`, { lids: [] }, 400, 'body.lids must NOT have fewer than 1 items'],
      ['POST', `/${bob.key}/contacts/resolve-lids`, { lids: [aliceLid, jidOf(ALICE)] }, 400, 'body.lids[1] must match pattern "^\\d{1,24}@lid$"'],
    ];
    for (const [method, path, body, status, message] of cases) {
      const res = await t.request(method, path, body);
      assert.equal(res.status, status, `${method} ${path} ${JSON.stringify(body)}`);
      assert.equal(res.body.error.message, message);
    }
    assert.deepEqual({ contacts: await contacts(bob), blocked: await blocked(bob) }, before);
  });

  it('answers 409 for channel operations while not connected; the stored list stays readable', async () => {
    assert.equal((await t.request('DELETE', `/${bob.key}/instance`)).status, 200);
    const before = await contacts(bob);
    for (const [method, path, body] of [
      ['POST', `/${bob.key}/contacts`, { number: CAROL, name: 'Renamed' }],
      ['DELETE', `/${bob.key}/contacts/${CAROL}`, undefined],
      ['PATCH', `/${bob.key}/contacts/${CAROL}?action=block`, undefined],
      ['GET', `/${bob.key}/contacts/blocked`, undefined],
      ['GET', `/${bob.key}/contacts/${CAROL}/status`, undefined],
      ['DELETE', `/${bob.key}/contacts/${CAROL}/session`, undefined],
      ['POST', `/${bob.key}/contacts/resolve-lids`, { lids: [aliceLid] }],
    ] as const) {
      const res = await t.request(method, path, body);
      assert.equal(res.status, 409, `${method} ${path}`);
      assert.equal(res.body.error.code, 'not_connected');
    }
    assert.deepEqual(await contacts(bob), before);
    assert.equal((await t.request('GET', `/${bob.key}/contacts/${CAROL}`)).body.data.name, 'Carol');
  });
});
