import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { apiError } from '../support/api-error.js';
import { deliverText, jidOf, startWithPhones, type Phone } from '../support/conversation.js';
import type { TestServer } from '../support/test-server.js';

const ALICE = '5511930000001';
const BOB = '5511930000002';

describe('labels (spec 4.7)', () => {
  let t: TestServer;
  let alice: Phone;
  let bob: Phone;

  before(async () => {
    ({ t, phones: { alice, bob } } = await startWithPhones({ alice: ALICE, bob: BOB }));
    await deliverText(t, alice, bob, 'hello');
  });
  after(() => t.stop());

  const labels = async (p: Phone) => (await t.client(p.key).call('listLabels')).data;
  const chatOf = async (p: Phone, jid: string) => (await t.client(p.key).call('listChats')).data.find((c) => c.id === jid)!;

  it('starts without labels and creates them with palette colors', async () => {
    const api = t.client(bob.key);
    assert.deepEqual(await api.call('listLabels'), { status: 200, data: [] });
    const vip = await api.call('createLabel', { body: { name: 'VIP' } });
    assert.deepEqual(vip, { status: 200, data: { id: '1', name: 'VIP', color: 0 } });
    const paid = await api.call('createLabel', { body: { name: 'Paid', color: 19 } });
    assert.deepEqual(paid, { status: 200, data: { id: '2', name: 'Paid', color: 19 } });
    const next = await api.call('createLabel', { body: { name: 'Pending' } });
    assert.deepEqual(next.data, { id: '3', name: 'Pending', color: 2 });
    assert.deepEqual(await labels(bob), [
      { id: '1', name: 'VIP', color: 0 }, { id: '2', name: 'Paid', color: 19 }, { id: '3', name: 'Pending', color: 2 },
    ]);
    assert.deepEqual(await labels(alice), []);
  });

  it('adds a label to a chat: the chat carries it and the label lists the chat', async () => {
    const api = t.client(bob.key);
    const res = await api.call('addLabelToChat', { params: { labelId: '1' }, body: { to: ALICE } });
    assert.equal(res.status, 200);
    const { timestamp, ...chat } = res.data;
    assert.deepEqual(chat, { id: jidOf(ALICE), name: 'alice', unreadCount: 1, labels: ['1'] });
    assert.equal(typeof timestamp, 'number');
    assert.deepEqual(await api.call('getLabel', { params: { labelId: '1' } }), {
      status: 200, data: { id: '1', name: 'VIP', color: 0, chats: [jidOf(ALICE)] },
    });
    assert.equal((await api.call('addLabelToChat', { params: { labelId: '2' }, body: { to: jidOf(ALICE) } })).data.labels!.join(), '1,2');
    // A chat that did not exist yet is created carrying the label.
    const fresh = await api.call('addLabelToChat', { params: { labelId: '2' }, body: { to: '5511930000099' } });
    assert.deepEqual(fresh.data, { id: jidOf('5511930000099'), name: jidOf('5511930000099'), timestamp: 0, unreadCount: 0, labels: ['2'] });
    assert.deepEqual((await api.call('getLabel', { params: { labelId: '2' } })).data.chats, [jidOf(ALICE), jidOf('5511930000099')]);
    assert.deepEqual((await chatOf(bob, jidOf(ALICE))).labels, ['1', '2']);
  });

  it('removes a label from a chat', async () => {
    const api = t.client(bob.key);
    const res = await api.call('removeLabelFromChat', { params: { labelId: '1', number: ALICE } });
    assert.deepEqual(res, { status: 200, message: `Label 1 removed from chat ${jidOf(ALICE)}` });
    assert.deepEqual((await api.call('getLabel', { params: { labelId: '1' } })).data.chats, []);
    assert.deepEqual((await chatOf(bob, jidOf(ALICE))).labels, ['2']);
    await assert.rejects(api.call('removeLabelFromChat', { params: { labelId: '1', number: ALICE } }), apiError(404, 'label_not_on_chat'));
  });

  it('deletes a label and takes it off every chat', async () => {
    const api = t.client(bob.key);
    const res = await api.call('deleteLabel', { params: { labelId: '2' } });
    assert.deepEqual(res, { status: 200, message: 'Label 2 deleted' });
    assert.deepEqual((await labels(bob)).map((l) => l.id), ['1', '3']);
    assert.deepEqual((await chatOf(bob, jidOf(ALICE))).labels, []);
    assert.deepEqual((await chatOf(bob, jidOf('5511930000099'))).labels, []);
    await assert.rejects(api.call('getLabel', { params: { labelId: '2' } }), apiError(404, 'label_not_found'));
  });

  it('drops a deleted chat from its labels', async () => {
    const api = t.client(bob.key);
    assert.equal((await api.call('addLabelToChat', { params: { labelId: '3' }, body: { to: '5511930000099' } })).status, 200);
    assert.equal((await api.call('deleteChat', { params: { jid: '5511930000099' } })).status, 200);
    assert.deepEqual((await api.call('getLabel', { params: { labelId: '3' } })).data.chats, []);
  });

  it('rejects bad input and unknown labels, changing nothing', async () => {
    const api = t.client(bob.key);
    const before = { labels: await labels(bob), chat: await chatOf(bob, jidOf(ALICE)) };
    // Bodies the typed client refuses at compile time (missing members, wrong types): sent raw.
    const raw: [string, string, unknown, number, string][] = [
      ['POST', `/${bob.key}/labels`, {}, 400, 'body.name is required'],
      ['POST', `/${bob.key}/labels`, { name: 7 }, 400, 'body.name must be string'],
      ['POST', `/${bob.key}/labels`, { name: 'Blue', color: '3' }, 400, 'body.color must be integer'],
      ['POST', `/${bob.key}/labels/1`, {}, 400, 'body.to is required'],
    ];
    for (const [method, path, body, status, message] of raw) {
      const res = await t.request(method, path, body);
      assert.equal(res.status, status, `${method} ${path} ${JSON.stringify(body)}`);
      assert.equal(res.body.error.message, message);
    }
    const typed: [string, () => Promise<unknown>, number, string, string][] = [
      ['empty name', () => api.call('createLabel', { body: { name: '' } }), 400, 'validation_failed', 'body.name must NOT have fewer than 1 characters'],
      ['color 20', () => api.call('createLabel', { body: { name: 'Blue', color: 20 } }), 400, 'validation_failed', 'body.color must be <= 19'],
      ['duplicate name', () => api.call('createLabel', { body: { name: 'vip' } }), 409, 'label_exists', 'a label named "vip" exists'],
      ['get 99', () => api.call('getLabel', { params: { labelId: '99' } }), 404, 'label_not_found', 'label 99 not found'],
      ['add 99', () => api.call('addLabelToChat', { params: { labelId: '99' }, body: { to: ALICE } }), 404, 'label_not_found', 'label 99 not found'],
      ['bad to', () => api.call('addLabelToChat', { params: { labelId: '1' }, body: { to: 'nobody' } }), 400, 'validation_failed', 'body.to must be a phone number with country code (6 to 15 digits) or a JID'],
      ['remove 99', () => api.call('removeLabelFromChat', { params: { labelId: '99', number: ALICE } }), 404, 'label_not_found', 'label 99 not found'],
      ['bad number', () => api.call('removeLabelFromChat', { params: { labelId: '1', number: 'x' } }), 400, 'validation_failed', 'path.number must be a phone number with country code (6 to 15 digits) or a JID'],
      ['delete 99', () => api.call('deleteLabel', { params: { labelId: '99' } }), 404, 'label_not_found', 'label 99 not found'],
    ];
    for (const [what, call, status, code, message] of typed) {
      await assert.rejects(call(), apiError(status, code, message), what);
    }
    assert.deepEqual({ labels: await labels(bob), chat: await chatOf(bob, jidOf(ALICE)) }, before);
  });

  it('keeps at most 20 labels', async () => {
    const api = t.client(bob.key);
    for (let i = (await labels(bob)).length; i < 20; i++) {
      assert.equal((await api.call('createLabel', { body: { name: `Label ${i}` } })).status, 200);
    }
    await assert.rejects(api.call('createLabel', { body: { name: 'One too many' } }), apiError(409, 'label_limit'));
    assert.equal((await labels(bob)).length, 20);
  });

  it('answers 409 while not connected and changes nothing', async () => {
    const api = t.client(alice.key);
    assert.equal((await api.call('createLabel', { body: { name: 'Lead' } })).status, 200);
    assert.equal((await api.call('logoutInstance')).status, 200);
    const calls: [string, () => Promise<unknown>][] = [
      ['listLabels', () => api.call('listLabels')],
      ['createLabel', () => api.call('createLabel', { body: { name: 'Other' } })],
      ['getLabel', () => api.call('getLabel', { params: { labelId: '1' } })],
      ['addLabelToChat', () => api.call('addLabelToChat', { params: { labelId: '1' }, body: { to: BOB } })],
      ['removeLabelFromChat', () => api.call('removeLabelFromChat', { params: { labelId: '1', number: BOB } })],
      ['deleteLabel', () => api.call('deleteLabel', { params: { labelId: '1' } })],
    ];
    for (const [what, call] of calls) {
      await assert.rejects(call(), apiError(409, 'not_connected'), what);
    }
    assert.equal((await api.call('connectInstance')).status, 200);
    assert.equal((await api.call('sandbox_post_key_scan')).status, 200);
    assert.deepEqual(await labels(alice), [{ id: '1', name: 'Lead', color: 0 }]);
    assert.equal((await chatOf(alice, jidOf(BOB))).labels, undefined);
  });
});
