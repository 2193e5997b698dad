import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { delivered, deliveredMeta, nativeWebhooks, useWebhookReceivers, type MetaChange, type NativeBody } from '../support/simulated-webhooks.js';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { UrlKind } from '../support/webhook-receivers.js';
import type { TestServer } from '../support/test-server.js';

/**
 * Server verdicts of issue 25 on Baileys' real socket, through the real server: a Brazilian number
 * WhatsApp files without the ninth digit (defect 3), a restricted account's sends (ack error 463), and
 * group info and members changed from members' phones, each as native and meta webhooks deliver them.
 */
describe('WhatsApp server verdicts through Parley', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  const hooks = useWebhookReceivers();
  const env = useSimulatedWhatsApp();
  before(() => {
    ({ sim, t } = env);
  });
  const native = (path: string, kind: UrlKind, match: (body: NativeBody) => boolean, what: string) => delivered(t, hooks.receivers(), kind, path, match, what);
  const meta = (path: string, kind: UrlKind, match: (change: MetaChange) => boolean, what: string) => deliveredMeta(t, hooks.receivers(), kind, path, match, what);

  it('a send to the 9-digit number reaches the phone filed under the 8-digit form; its reply lands in the same chat, found by either form', { timeout: 90_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659400', pushName: 'Loja' });
    const maria = sim.simulator.createAccount({ number: '5511987659401', pushName: 'Dona Maria', withoutNinthDigit: true });
    assert.equal(maria.jid, '551187659401@s.whatsapp.net');
    const { api } = await env.linkByQr(shop.number, 'ninth-digit');
    // Spec 4.8 GET /actions/registered asks WhatsApp's usync: either form is the 8-digit account; a number with no account is not.
    for (const typed of ['5511987659401', '+551187659401']) {
      assert.deepEqual(await api.call('isRegistered', { query: { number: typed } }), { status: 200, registered: true, jid: maria.jid }, typed);
    }
    assert.deepEqual(await api.call('isRegistered', { query: { number: '5511987659499' } }), { status: 200, registered: false });
    const sent = await api.call('sendText', { body: { to: '5511987659401', text: 'Seu pedido saiu para entrega' } });
    assert.equal(sent.data.key.remoteJid, maria.jid, 'sent to the account WhatsApp answered');
    const got = await t.waitFor(() => sim.simulator.received(maria.number).find((m) => m.id === sent.data.key.id), 20_000, 'the phone to decrypt the send');
    assert.deepEqual([got.text, got.fromNumber], ['Seu pedido saiu para entrega', shop.number]);

    const reply = await sim.simulator.sendText(maria.number, shop.number, 'Obrigada!');
    const event = await t.waitFor(() => t.events.find((e) => e.type === 'message' && e.message.id === reply.id), 20_000, 'the reply');
    assert.ok(event.type === 'message');
    assert.deepEqual([event.message.chatJid, event.message.from, event.message.fromMe], [maria.jid, '551187659401', false]);

    await t.waitFor(async () => ((await api.call('listChats')).data as Array<{ id: string }>).some((c) => c.id === maria.jid), 10_000, 'the chat');
    const chats = (await api.call('listChats')).data as Array<{ id: string }>;
    assert.deepEqual(chats.map((c) => c.id).filter((id) => id.includes('87659401')), [maria.jid], 'one chat, under the account\'s JID');
    for (const typed of ['5511987659401', '+55 11 98765-9401', '551187659401', maria.jid]) {
      const page = await api.call('listChatMessages', { params: { jid: typed } });
      assert.deepEqual(page.data.map((m: { key: { id: string } }) => m.key.id).sort(), [sent.data.key.id, reply.id].sort(), `GET /chat/${typed}/messages`);
    }
    // A send that waits (here a delay) is resolved before it is queued: it waits under the account WhatsApp answered.
    const later = await api.call('sendText', { body: { to: '+55 11 98765-9401', text: 'Chega em 10 minutos', delay: 1500 } });
    assert.equal(later.data.key.remoteJid, maria.jid);
    const queued = (await api.call('listQueue')).data as Array<{ key: { remoteJid: string } }>;
    assert.deepEqual(queued.map((q) => q.key.remoteJid), [maria.jid], 'queued under the account WhatsApp answered');
    await t.waitFor(() => sim.simulator.received(maria.number).find((m) => m.id === later.data.key.id), 20_000, 'the phone to get the delayed send');
    assert.equal(sim.simulator.received('5511987659401').length, 2, 'nothing went to the 9-digit ghost chat');
  });

  it('a restricted account\'s send ends ERROR: message.status failed with error 463, native and meta', { timeout: 90_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659410', pushName: 'Loja', restricted: true });
    const friend = sim.simulator.createAccount({ number: '5511987659411', pushName: 'Cliente' });
    const path = 'restricted';
    const { api } = await env.linkByQr(shop.number, 'restricted', (instance) => nativeWebhooks(instance, hooks.receivers(), path, 'both'));
    const sent = await api.call('sendText', { body: { to: friend.number, text: 'Promoção!' } });
    assert.equal(sent.data.status, 'PENDING');
    const id = sent.data.key.id;
    const failed = await native(path, 'webhookMessage', (b) => b.type === 'message.status' && b.data.messageId === id && b.data.status === 'failed', 'native failed status');
    assert.equal(failed.data.recipientId, friend.number);
    assert.equal(failed.data.error.code, 463);
    assert.equal(failed.data.error.title, 'Account restricted');
    const change = await meta(path, 'webhookMessage', (c) => c.field === 'messages' && c.value.statuses?.some((s: { id: string }) => s.id === id), 'meta failed status');
    const status = change.value.statuses.find((s: { id: string }) => s.id === id);
    assert.equal(status.status, 'failed');
    assert.equal(status.recipient_id, friend.number);
    assert.deepEqual(status.errors.map((e: { code: number; title: string }) => [e.code, e.title]), [[463, 'Account restricted']]);
    assert.equal(typeof status.errors[0].error_data.details, 'string');
    const stored = await t.waitFor(async () => {
      const record = await api.call('getMessage', { params: { messageId: id } });
      return record.data.status === 'ERROR' ? record.data : undefined;
    }, 20_000, 'the record to end ERROR (the REST status of a failed send)');
    assert.equal(stored.key.remoteJid, friend.jid);
    assert.deepEqual(sim.simulator.received(friend.number), [], 'nothing delivered');
  });

  it('group-update and group-participants from members\' phones: subject, description, settings, remove, promote; native and meta', { timeout: 90_000 }, async () => {
    const shop = sim.simulator.createAccount({ number: '5511987659420', pushName: 'Loja' });
    const owner = sim.simulator.createAccount({ number: '5511987659421', pushName: 'Dona' });
    const member = sim.simulator.createAccount({ number: '5511987659422', pushName: 'Membro' });
    const leaving = sim.simulator.createAccount({ number: '5511987659423', pushName: 'Saindo' });
    const path = 'groups';
    await env.linkByQr(shop.number, 'group-updates', (instance) => nativeWebhooks(instance, hooks.receivers(), path, 'both'));
    const group = sim.simulator.createGroup(owner.number, 'Atacado', [shop.number, member.number, leaving.number]);
    await native(path, 'webhookGroup', (b) => b.type === 'group.update' && b.data.groups.some((g: { id: string }) => g.id === group.jid), 'the group joined');

    sim.simulator.changeGroup(member.number, group.jid, { subject: 'Atacado SP' });
    sim.simulator.changeGroup(owner.number, group.jid, { description: 'Pedidos até 18h', setting: 'announcement' });
    const updated = (field: string, value: unknown) => (b: NativeBody) => b.type === 'group.update'
      && b.data.groups.some((g: Record<string, unknown>) => g.id === group.jid && JSON.stringify(g[field]) === JSON.stringify(value));
    await native(path, 'webhookGroup', updated('subject', 'Atacado SP'), 'native subject');
    await native(path, 'webhookGroup', updated('desc', 'Pedidos até 18h'), 'native description');
    await native(path, 'webhookGroup', updated('announce', true), 'native announcement');
    const metaUpdate = await meta(path, 'webhookGroup', (c) => c.field === 'groups' && c.value.groups.event === 'update'
      && c.value.groups.data.some((g: { id: string; subject?: string }) => g.id === group.jid && g.subject === 'Atacado SP'), 'meta subject');
    assert.deepEqual(metaUpdate.value.groups.data.find((g: { id: string }) => g.id === group.jid), { id: group.jid, subject: 'Atacado SP' });

    sim.simulator.updateGroupMembers(owner.number, group.jid, 'promote', [member.number]);
    // The member just made an admin removes another member.
    assert.deepEqual(sim.simulator.updateGroupMembers(member.number, group.jid, 'remove', [leaving.number]), [{ number: leaving.number, status: 200 }]);
    for (const [action, number] of [['promote', member.number], ['remove', leaving.number]] as const) {
      const body = await native(path, 'webhookGroup', (b) => b.type === 'group.participants' && b.data.groupJid === group.jid && b.data.action === action, `native ${action}`);
      assert.deepEqual(body.data.participants, [`${number}@s.whatsapp.net`]);
      const change = await meta(path, 'webhookGroup', (c) => c.field === 'groups' && c.value.groups.event === 'participants_updated' && c.value.groups.action === action, `meta ${action}`);
      assert.deepEqual(change.value.groups, { event: 'participants_updated', id: group.jid, action, participants: [`${number}@s.whatsapp.net`] });
    }
  });
});
