import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { phoneGot } from '../support/simulated-phone.js';
import { nativeWebhooks, useWebhookReceivers, type NativeBody } from '../support/simulated-webhooks.js';
import { at } from '../support/webhook-receivers.js';
import { useSimulatedWhatsApp, type SimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

type Api = Awaited<ReturnType<SimulatedWhatsApp['linkByQr']>>['api'];

/**
 * Privacy settings that change what Parley sees, on Baileys' real socket against the simulator: a peer that
 * turned read receipts off never yields `read` in the webhooks (WhatsApp's FAQ: "If you turn off read
 * receipts, you won't be able to see read receipts from other people"), nor does any peer once the instance's
 * own account turned them off, which `GET /{key}/chat/privacy` then shows; and an add the person's `groupadd`
 * privacy refuses answers that participant `403` with the invitation WhatsApp offers instead.
 */
describe('WhatsApp privacy settings through Parley, on the simulator', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  let api: Api;
  const hooks = useWebhookReceivers();
  const shop = '5511987659701';
  const friend = '5511987659702';
  const carol = '5511987659703';
  const dave = '5511987659704';
  const path = 'privacy';
  const env = useSimulatedWhatsApp();
  before(async () => {
    ({ sim, t } = env);
    for (const [number, pushName] of [[shop, 'Loja'], [friend, 'Cliente'], [carol, 'Carol'], [dave, 'Dave']] as const) sim.simulator.createAccount({ number, pushName });
    ({ api } = await env.linkByQr(shop, 'privacy', (instance) => nativeWebhooks(instance, hooks.receivers(), path, 'native')));
  });

  /** The native statuses of message `id`, in delivery order. */
  const statuses = (id: string) => at(hooks.receivers().webhookMessage, path).map((r) => r.json as NativeBody)
    .filter((b) => b.type === 'message.status' && b.data.messageId === id).map((b) => b.data.status as string);
  const sendText = async (to: string, text: string) => (await api.call('sendText', { body: { to, text } })).data.key.id as string;
  /** Sends to the friend, waits until the phone has it and Parley reported it delivered, then has the phone read it. */
  const sendAndRead = async (text: string) => {
    const id = await sendText(friend, text);
    await phoneGot(sim, t, friend, id);
    await t.waitFor(() => statuses(id).includes('delivered') || undefined, 20_000, `"${text}" delivered`);
    sim.simulator.markRead(friend, id);
    return id;
  };
  const readArrives = (id: string, what: string) => t.waitFor(() => statuses(id).includes('read') || undefined, 20_000, what);

  it('a peer with read receipts off: its reads never reach the webhooks; the instance\'s own setting off stops every peer\'s', { timeout: 90_000 }, async () => {
    sim.simulator.setPrivacy(friend, { readreceipts: 'none' });
    const unread = await sendAndRead('Seu pedido saiu');
    // The peer turns them back on: the next read arrives, after which the earlier one would have too.
    sim.simulator.setPrivacy(friend, { readreceipts: 'all' });
    await readArrives(await sendAndRead('Chegou?'), 'the read once the peer turned receipts on');
    assert.deepEqual(statuses(unread), ['sent', 'delivered']);

    // The instance turns its account's read receipts off through Parley: WhatsApp keeps it, and peers' reads stop.
    const changed = (await api.call('updatePrivacySettings', { body: { readreceipts: 'none' } })).data;
    assert.deepEqual([changed.readreceipts, sim.simulator.privacy(shop).readreceipts], ['none', 'none']);
    assert.deepEqual((await api.call('getPrivacySettings')).data, sim.simulator.privacy(shop));
    const mine = await sendAndRead('Sem confirmação de leitura');
    // Changed on the phone, the setting shows through Parley at once.
    sim.simulator.setPrivacy(shop, { readreceipts: 'all' });
    assert.equal((await api.call('getPrivacySettings')).data.readreceipts, 'all');
    await readArrives(await sendAndRead('De volta'), 'the read once the account turned receipts on');
    assert.deepEqual(statuses(mine), ['sent', 'delivered']);
  });

  it('adding someone whose privacy lets only contacts add them answers 403 with the invitation; the others get their own answers', { timeout: 60_000 }, async () => {
    sim.simulator.setPrivacy(friend, { groupadd: 'contacts' });
    const group = (await api.call('createGroup', { body: { name: 'Clientes', participants: [carol] } })).data;
    const before = Math.floor(Date.now() / 1000);
    const added = (await api.call('addGroupParticipants', { params: { groupJid: group.id }, body: { participants: [friend, dave, carol] } })).data;
    assert.equal(added.length, 3);
    const [refused, ...others] = added;
    assert.deepEqual([refused!.jid, refused!.status], [`${friend}@s.whatsapp.net`, '403']);
    assert.match(refused!.addRequest!.code, /^[\w-]{22}$/);
    assert.ok(refused!.addRequest!.expiration > before, 'the invitation expires in the future');
    assert.deepEqual(others, [{ jid: `${dave}@s.whatsapp.net`, status: '200' }, { jid: `${carol}@s.whatsapp.net`, status: '409' }]);
    assert.deepEqual(sim.simulator.getGroup(group.id).members.map((m) => m.number).sort(), [shop, carol, dave].sort());

    // Once the friend saved the shop as a contact, the same add goes through.
    await sim.simulator.changeAppState(friend, [{ kind: 'contact', jid: `${shop}@s.whatsapp.net`, fullName: 'Loja' }]);
    assert.deepEqual((await api.call('addGroupParticipants', { params: { groupJid: group.id }, body: { participants: [friend] } })).data, [{ jid: `${friend}@s.whatsapp.net`, status: '200' }]);

    // The instance's own account refuses strangers' adds once Parley set it: a phone that is no contact gets 403.
    await api.call('updatePrivacySettings', { body: { groupadd: 'contacts', last: 'contacts' } });
    assert.deepEqual([sim.simulator.privacy(shop).groupadd, sim.simulator.privacy(shop).last], ['contacts', 'contacts']);
    const theirs = sim.simulator.createGroup(dave, 'Vizinhos', []);
    assert.deepEqual(sim.simulator.updateGroupMembers(dave, theirs.jid, 'add', [shop]).map((r) => r.status), [403]);
  });

  it('refuses an unknown category or value with 400 and changes nothing', { timeout: 30_000 }, async () => {
    const before = sim.simulator.privacy(shop);
    for (const body of [{ readreceipts: 'contacts' }, { colour: 'blue', last: 'none' }, {}, { online: 'none' }]) {
      // Bodies the typed client refuses at compile time: sent raw.
      const res = await t.request('PUT', `/${api.key}/chat/privacy`, body);
      assert.deepEqual([res.status, res.body.error.code], [400, 'validation_failed'], JSON.stringify(body));
    }
    assert.deepEqual(sim.simulator.privacy(shop), before);
  });
});
