import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
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

  const labels = async (p: Phone) => (await t.request('GET', `/${p.key}/labels`)).body.data;
  const chatOf = async (p: Phone, jid: string) => (await t.request('GET', `/${p.key}/chat`)).body.data.find((c: { id: string }) => c.id === jid);

  it('starts without labels and creates them with palette colors', async () => {
    assert.deepEqual((await t.request('GET', `/${bob.key}/labels`)).body, { status: 200, data: [] });
    const vip = await t.request('POST', `/${bob.key}/labels`, { name: 'VIP' });
    assert.deepEqual(vip.body, { status: 200, data: { id: '1', name: 'VIP', color: 0 } });
    const paid = await t.request('POST', `/${bob.key}/labels`, { name: 'Paid', color: 19 });
    assert.deepEqual(paid.body, { status: 200, data: { id: '2', name: 'Paid', color: 19 } });
    const next = await t.request('POST', `/${bob.key}/labels`, { name: 'Pending' });
    assert.deepEqual(next.body.data, { id: '3', name: 'Pending', color: 2 });
    assert.deepEqual(await labels(bob), [
      { id: '1', name: 'VIP', color: 0 }, { id: '2', name: 'Paid', color: 19 }, { id: '3', name: 'Pending', color: 2 },
    ]);
    assert.deepEqual(await labels(alice), []);
  });

  it('adds a label to a chat: the chat carries it and the label lists the chat', async () => {
    const res = await t.request('POST', `/${bob.key}/labels/1`, { to: ALICE });
    assert.equal(res.status, 200);
    const { timestamp, ...chat } = res.body.data;
    assert.deepEqual(chat, { id: jidOf(ALICE), name: 'alice', unreadCount: 1, labels: ['1'] });
    assert.equal(typeof timestamp, 'number');
    assert.deepEqual((await t.request('GET', `/${bob.key}/labels/1`)).body, {
      status: 200, data: { id: '1', name: 'VIP', color: 0, chats: [jidOf(ALICE)] },
    });
    assert.equal((await t.request('POST', `/${bob.key}/labels/2`, { to: jidOf(ALICE) })).body.data.labels.join(), '1,2');
    // A chat that did not exist yet is created carrying the label.
    const fresh = await t.request('POST', `/${bob.key}/labels/2`, { to: '5511930000099' });
    assert.deepEqual(fresh.body.data, { id: jidOf('5511930000099'), name: jidOf('5511930000099'), timestamp: 0, unreadCount: 0, labels: ['2'] });
    assert.deepEqual((await t.request('GET', `/${bob.key}/labels/2`)).body.data.chats, [jidOf(ALICE), jidOf('5511930000099')]);
    assert.deepEqual((await chatOf(bob, jidOf(ALICE))).labels, ['1', '2']);
  });

  it('removes a label from a chat', async () => {
    const res = await t.request('DELETE', `/${bob.key}/labels/1/chat/${ALICE}`);
    assert.deepEqual(res.body, { status: 200, message: `Label 1 removed from chat ${jidOf(ALICE)}` });
    assert.deepEqual((await t.request('GET', `/${bob.key}/labels/1`)).body.data.chats, []);
    assert.deepEqual((await chatOf(bob, jidOf(ALICE))).labels, ['2']);
    const again = await t.request('DELETE', `/${bob.key}/labels/1/chat/${ALICE}`);
    assert.equal(again.status, 404);
    assert.equal(again.body.error.code, 'label_not_on_chat');
  });

  it('deletes a label and takes it off every chat', async () => {
    const res = await t.request('DELETE', `/${bob.key}/labels/2`);
    assert.deepEqual(res.body, { status: 200, message: 'Label 2 deleted' });
    assert.deepEqual((await labels(bob)).map((l: { id: string }) => l.id), ['1', '3']);
    assert.deepEqual((await chatOf(bob, jidOf(ALICE))).labels, []);
    assert.deepEqual((await chatOf(bob, jidOf('5511930000099'))).labels, []);
    const gone = await t.request('GET', `/${bob.key}/labels/2`);
    assert.equal(gone.status, 404);
    assert.equal(gone.body.error.code, 'label_not_found');
  });

  it('drops a deleted chat from its labels', async () => {
    assert.equal((await t.request('POST', `/${bob.key}/labels/3`, { to: '5511930000099' })).status, 200);
    assert.equal((await t.request('DELETE', `/${bob.key}/chat/5511930000099`)).status, 200);
    assert.deepEqual((await t.request('GET', `/${bob.key}/labels/3`)).body.data.chats, []);
  });

  it('rejects bad input and unknown labels, changing nothing', async () => {
    const before = { labels: await labels(bob), chat: await chatOf(bob, jidOf(ALICE)) };
    const cases: [string, string, unknown, number, string][] = [
      ['POST', `/${bob.key}/labels`, {}, 400, 'body.name is required'],
      ['POST', `/${bob.key}/labels`, { name: '' }, 400, 'body.name must NOT have fewer than 1 characters'],
      ['POST', `/${bob.key}/labels`, { name: 7 }, 400, 'body.name must be string'],
      ['POST', `/${bob.key}/labels`, { name: 'Blue', color: 20 }, 400, 'body.color must be <= 19'],
      ['POST', `/${bob.key}/labels`, { name: 'Blue', color: '3' }, 400, 'body.color must be integer'],
      ['POST', `/${bob.key}/labels`, { name: 'vip' }, 409, 'a label named "vip" exists'],
      ['GET', `/${bob.key}/labels/99`, undefined, 404, 'label 99 not found'],
      ['POST', `/${bob.key}/labels/99`, { to: ALICE }, 404, 'label 99 not found'],
      ['POST', `/${bob.key}/labels/1`, {}, 400, 'body.to is required'],
      ['POST', `/${bob.key}/labels/1`, { to: 'nobody' }, 400, 'body.to must be a phone number with country code (6 to 15 digits) or a JID'],
      ['DELETE', `/${bob.key}/labels/99/chat/${ALICE}`, undefined, 404, 'label 99 not found'],
      ['DELETE', `/${bob.key}/labels/1/chat/x`, undefined, 400, 'path.number must be a phone number with country code (6 to 15 digits) or a JID'],
      ['DELETE', `/${bob.key}/labels/99`, undefined, 404, 'label 99 not found'],
    ];
    for (const [method, path, body, status, message] of cases) {
      const res = await t.request(method, path, body);
      assert.equal(res.status, status, `${method} ${path} ${JSON.stringify(body)}`);
      assert.equal(res.body.error.message, message);
    }
    assert.deepEqual({ labels: await labels(bob), chat: await chatOf(bob, jidOf(ALICE)) }, before);
  });

  it('keeps at most 20 labels', async () => {
    for (let i = (await labels(bob)).length; i < 20; i++) {
      assert.equal((await t.request('POST', `/${bob.key}/labels`, { name: `Label ${i}` })).status, 200);
    }
    const over = await t.request('POST', `/${bob.key}/labels`, { name: 'One too many' });
    assert.equal(over.status, 409);
    assert.equal(over.body.error.code, 'label_limit');
    assert.equal((await labels(bob)).length, 20);
  });

  it('answers 409 while not connected and changes nothing', async () => {
    assert.equal((await t.request('POST', `/${alice.key}/labels`, { name: 'Lead' })).status, 200);
    assert.equal((await t.request('DELETE', `/${alice.key}/instance`)).status, 200);
    for (const [method, path, body] of [
      ['GET', `/${alice.key}/labels`, undefined],
      ['POST', `/${alice.key}/labels`, { name: 'Other' }],
      ['GET', `/${alice.key}/labels/1`, undefined],
      ['POST', `/${alice.key}/labels/1`, { to: BOB }],
      ['DELETE', `/${alice.key}/labels/1/chat/${BOB}`, undefined],
      ['DELETE', `/${alice.key}/labels/1`, undefined],
    ] as const) {
      const res = await t.request(method, path, body);
      assert.equal(res.status, 409, `${method} ${path}`);
      assert.equal(res.body.error.code, 'not_connected');
    }
    assert.equal((await t.request('POST', `/${alice.key}/instance`)).status, 200);
    assert.equal((await t.request('POST', `/sandbox/${alice.key}/scan`)).status, 200);
    assert.deepEqual(await labels(alice), [{ id: '1', name: 'Lead', color: 0 }]);
    assert.equal((await chatOf(alice, jidOf(BOB))).labels, undefined);
  });
});
