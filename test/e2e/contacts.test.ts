import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiError } from '../support/api-error.js';
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
    aliceLid = (await t.client(alice.key).call('getInstance')).instance.user!.lid!;
  });
  after(() => t.stop());

  const contacts = async (p: Phone) => (await t.client(p.key).call('listContacts')).data;
  const blocked = async (p: Phone) => (await t.client(p.key).call('listBlockedContacts')).data;
  const inboxTotal = async (p: Phone, from: string) => (await t.client(p.key).call('listChatMessages', { params: { jid: from } })).total;
  const sessions = (p: Phone) => t.server.context.storage.state.get<Record<string, { establishedAt: number }>>(`${p.id}:sandbox`, 'sessions');

  it('lists the contacts the instance heard from, and gets one', async () => {
    const api = t.client(bob.key);
    assert.deepEqual(await api.call('listContacts'), { status: 200, data: [] });
    await deliverText(t, alice, bob, 'hi bob');
    assert.deepEqual(await contacts(bob), [{ id: jidOf(ALICE), name: '', notify: 'alice' }]);
    assert.deepEqual(await api.call('getContact', { params: { number: ALICE } }), {
      status: 200, data: { id: jidOf(ALICE), name: '', notify: 'alice' },
    });
    await assert.rejects(api.call('getContact', { params: { number: CAROL } }), (err: unknown) => {
      apiError(404, 'contact_not_found', `contact ${jidOf(CAROL)} not found`)(err);
      assert.equal((err as { details?: unknown }).details, undefined);
      return true;
    });
  });

  it('saves a contact through the channel: name and LID show in the list', async () => {
    const api = t.client(bob.key);
    const res = await api.call('saveContact', { body: { number: ALICE, name: 'Alice Smith' } });
    assert.deepEqual(res, { status: 200, data: { id: jidOf(ALICE), name: 'Alice Smith', notify: 'alice', lid: aliceLid } });
    const carolSaved = await api.call('saveContact', { body: { number: jidOf(CAROL), name: 'Carol' } });
    assert.equal(carolSaved.status, 200);
    assert.deepEqual((await contacts(bob)).map((c) => [c.id, c.name]), [[jidOf(ALICE), 'Alice Smith'], [jidOf(CAROL), 'Carol']]);
    // A number without an account can be saved too (as on a phone), without a LID.
    const offNetwork = await api.call('saveContact', { body: { number: UNKNOWN, name: 'Landline' } });
    assert.deepEqual(offNetwork.data, { id: jidOf(UNKNOWN), name: 'Landline', notify: '' });
  });

  it('removes a contact through the channel: it leaves the list', async () => {
    const api = t.client(bob.key);
    const res = await api.call('removeContact', { params: { number: UNKNOWN } });
    assert.deepEqual(res, { status: 200, message: `Contact ${jidOf(UNKNOWN)} removed` });
    await assert.rejects(api.call('getContact', { params: { number: UNKNOWN } }), apiError(404, 'contact_not_found'));
    assert.deepEqual((await contacts(bob)).map((c) => c.id), [jidOf(ALICE), jidOf(CAROL)]);
    await assert.rejects(api.call('removeContact', { params: { number: UNKNOWN } }), apiError(404, 'contact_not_found'));
  });

  it('blocks a contact: it is listed and its messages no longer arrive', async () => {
    const api = t.client(bob.key);
    const res = await api.call('blockContact', { params: { number: ALICE }, query: { action: 'block' } });
    assert.deepEqual(res, { status: 200, data: { jid: jidOf(ALICE), blocked: true } });
    assert.deepEqual(await api.call('listBlockedContacts'), { status: 200, data: [jidOf(ALICE)] });

    const before = await inboxTotal(bob, ALICE);
    const aliceApi = t.client(alice.key);
    const sent = await aliceApi.call('sendText', { body: { to: BOB, text: 'are you there?' } });
    assert.equal(sent.status, 200);
    await t.waitFor(async () => {
      const record = (await aliceApi.call('listChatMessages', { params: { jid: BOB } })).data[0]!;
      return record.key.id === sent.data.key.id && record.status === 'SERVER_ACK';
    }, 5000, 'the sent status');
    await t.settle();
    assert.equal(await inboxTotal(bob, ALICE), before);
    // One tick only: a blocked sender never gets a delivery receipt.
    const record = (await aliceApi.call('listChatMessages', { params: { jid: BOB } })).data[0]!;
    assert.deepEqual([record.key.id, record.status], [sent.data.key.id, 'SERVER_ACK']);

    const unblocked = await api.call('blockContact', { params: { number: jidOf(ALICE) }, query: { action: 'unblock' } });
    assert.deepEqual(unblocked, { status: 200, data: { jid: jidOf(ALICE), blocked: false } });
    assert.deepEqual(await blocked(bob), []);
    await deliverText(t, alice, bob, 'now?');
    assert.equal(await inboxTotal(bob, ALICE), before + 1);
  });

  it('answers a contact\'s about text, hidden from phones it blocked', async () => {
    const api = t.client(bob.key);
    const carolApi = t.client(carol.key);
    const none = await api.call('getContactStatus', { params: { number: CAROL } });
    assert.deepEqual(none, { status: 200, data: { jid: jidOf(CAROL), status: null } });
    const setAt = Math.floor(Date.now() / 1000);
    assert.equal((await carolApi.call('setProfileStatus', { body: { text: 'Out fishing' } })).status, 200);
    const res = await api.call('getContactStatus', { params: { number: CAROL } });
    assert.deepEqual(Object.keys(res.data), ['jid', 'status', 'setAt']);
    assert.equal(res.data.jid, jidOf(CAROL));
    assert.equal(res.data.status, 'Out fishing');
    assert.ok(res.data.setAt! >= setAt && res.data.setAt! <= Math.floor(Date.now() / 1000));

    assert.equal((await carolApi.call('blockContact', { params: { number: BOB }, query: { action: 'block' } })).status, 200);
    assert.deepEqual((await api.call('getContactStatus', { params: { number: CAROL } })).data, { jid: jidOf(CAROL), status: null });
    assert.equal((await t.client(alice.key).call('getContactStatus', { params: { number: CAROL } })).data.status, 'Out fishing');
    assert.equal((await carolApi.call('blockContact', { params: { number: BOB }, query: { action: 'unblock' } })).status, 200);
  });

  it('clears the session with a contact; the next message establishes a new one', async () => {
    const established = (await sessions(bob))?.[ALICE];
    assert.ok(established && Number.isInteger(established.establishedAt));
    const api = t.client(bob.key);
    const res = await api.call('clearContactSession', { params: { number: ALICE } });
    assert.deepEqual(res, { status: 200, message: `Session with ${jidOf(ALICE)} cleared` });
    assert.equal((await sessions(bob))?.[ALICE], undefined);
    // Chats, messages and the contact stay.
    assert.ok((await api.call('getContact', { params: { number: ALICE } })).status === 200);
    assert.ok((await inboxTotal(bob, ALICE)) > 0);
    await deliverText(t, alice, bob, 'new session');
    assert.ok((await sessions(bob))?.[ALICE]);
  });

  it('resolves LIDs of sandbox numbers and answers null for unknown ones', async () => {
    const unknownLid = '100000000000001@lid';
    const res = await t.client(bob.key).call('resolveLids', { body: { lids: [aliceLid, unknownLid] } });
    assert.deepEqual(res, { status: 200, data: [{ lid: aliceLid, jid: jidOf(ALICE) }, { lid: unknownLid, jid: null }] });
  });

  it('rejects bad input and unknown numbers, changing nothing', async () => {
    const before = { contacts: await contacts(bob), blocked: await blocked(bob) };
    // Inputs the typed client refuses at compile time (missing members, wrong types, unknown actions): sent raw.
    const raw: [string, string, unknown, number, string][] = [
      ['POST', `/${bob.key}/contacts`, { number: ALICE }, 400, 'body.name is required'],
      ['POST', `/${bob.key}/contacts`, { name: 'X' }, 400, 'body.number is required'],
      ['POST', `/${bob.key}/contacts`, { number: ALICE, name: 5 }, 400, 'body.name must be string'],
      ['PATCH', `/${bob.key}/contacts/${ALICE}?action=mute`, undefined, 400, 'query.action must be one of "block", "unblock"'],
      ['PATCH', `/${bob.key}/contacts/${ALICE}`, undefined, 400, 'query.action is required'],
      ['POST', `/${bob.key}/contacts/resolve-lids`, {}, 400, 'body.lids is required'],
    ];
    for (const [method, path, body, status, message] of raw) {
      const res = await t.request(method, path, body);
      assert.equal(res.status, status, `${method} ${path} ${JSON.stringify(body)}`);
      assert.equal(res.body.error.message, message);
    }
    const api = t.client(bob.key);
    const typed: [string, () => Promise<unknown>, number, string, string][] = [
      ['empty name', () => api.call('saveContact', { body: { number: ALICE, name: '' } }), 400, 'validation_failed', 'body.name must NOT have fewer than 1 characters'],
      ['number abc', () => api.call('saveContact', { body: { number: 'abc', name: 'X' } }), 400, 'validation_failed', 'body.number must be a phone number with country code (6 to 15 digits) or a JID'],
      ['group number', () => api.call('saveContact', { body: { number: '120363000000000001@g.us', name: 'X' } }), 400, 'validation_failed', 'body.number must be a phone number or a contact JID, not a group or broadcast'],
      ['get abc', () => api.call('getContact', { params: { number: 'abc' } }), 400, 'validation_failed', 'path.number must be a phone number with country code (6 to 15 digits) or a JID'],
      ['block unknown', () => api.call('blockContact', { params: { number: UNKNOWN }, query: { action: 'block' } }), 404, 'number_not_registered', `number ${UNKNOWN} on the sandbox network not found`],
      ['block itself', () => api.call('blockContact', { params: { number: BOB }, query: { action: 'block' } }), 400, 'validation_failed', 'path.number cannot be the instance\'s own number'],
      ['status of unknown', () => api.call('getContactStatus', { params: { number: UNKNOWN } }), 404, 'number_not_registered', `number ${UNKNOWN} on the sandbox network not found`],
      ['session of unknown', () => api.call('clearContactSession', { params: { number: UNKNOWN } }), 404, 'number_not_registered', `number ${UNKNOWN} on the sandbox network not found`],
      ['no lids', () => api.call('resolveLids', { body: { lids: [] } }), 400, 'validation_failed', 'body.lids must NOT have fewer than 1 items'],
      ['a JID among lids', () => api.call('resolveLids', { body: { lids: [aliceLid, jidOf(ALICE)] } }), 400, 'validation_failed', 'body.lids[1] must match pattern "^\\d{1,24}@lid$"'],
    ];
    for (const [what, call, status, code, message] of typed) {
      await assert.rejects(call(), apiError(status, code, message), what);
    }
    assert.deepEqual({ contacts: await contacts(bob), blocked: await blocked(bob) }, before);
  });

  it('answers 409 for channel operations while not connected; the stored list stays readable', async () => {
    const api = t.client(bob.key);
    assert.equal((await api.call('logoutInstance')).status, 200);
    const before = await contacts(bob);
    const calls: [string, () => Promise<unknown>][] = [
      ['saveContact', () => api.call('saveContact', { body: { number: CAROL, name: 'Renamed' } })],
      ['removeContact', () => api.call('removeContact', { params: { number: CAROL } })],
      ['blockContact', () => api.call('blockContact', { params: { number: CAROL }, query: { action: 'block' } })],
      ['listBlockedContacts', () => api.call('listBlockedContacts')],
      ['getContactStatus', () => api.call('getContactStatus', { params: { number: CAROL } })],
      ['clearContactSession', () => api.call('clearContactSession', { params: { number: CAROL } })],
      ['resolveLids', () => api.call('resolveLids', { body: { lids: [aliceLid] } })],
    ];
    for (const [what, call] of calls) {
      await assert.rejects(call(), apiError(409, 'not_connected'), what);
    }
    assert.deepEqual(await contacts(bob), before);
    assert.equal((await api.call('getContact', { params: { number: CAROL } })).data.name, 'Carol');
  });
});
