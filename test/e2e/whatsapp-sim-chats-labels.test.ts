import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ParleyApiError } from '@parley/client';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';

/**
 * Issue 25: every label route of spec 4.7 through Parley's REST API, on the channel's real Baileys socket against
 * the simulator. Each change is checked on the phone (the labels and label chats of its app state, from the
 * companion's patches) and in what Parley answers afterwards (GET labels, the chat's `labels`).
 */
describe('WhatsApp Business labels managed through the REST API, as the phone sees them', () => {
  const env = useSimulatedWhatsApp();
  const refusedWith = (status: number, code: string) => (e: unknown) => e instanceof ParleyApiError && e.status === status && e.code === code;

  it('creates, assigns, removes and deletes labels: the phone shows each change, GET labels and the chat list follow', { timeout: 90_000 }, async () => {
    const { sim, t } = env;
    const shop = sim.simulator.createAccount({ number: '5511987658501', pushName: 'Loja', business: true });
    const ana = sim.simulator.createAccount({ number: '5511987658502', pushName: 'Ana' });
    const bia = sim.simulator.createAccount({ number: '5511987658503', pushName: 'Bia' });
    const { api } = await env.linkByQr(shop.number, 'labels');
    for (const phone of [ana, bia]) {
      const sent = await sim.simulator.sendText(phone.number, shop.number, 'Oi');
      await t.waitFor(async () => (await api.call('listChatMessages', { params: { jid: phone.jid } })).data.some((m) => m.key.id === sent.id), 20_000, 'the chat');
    }
    const phoneLabels = () => sim.simulator.phoneState(shop.number).labels;

    const paid = (await api.call('createLabel', { body: { name: 'Pago', color: 5 } })).data;
    assert.deepEqual(paid, { id: '1', name: 'Pago', color: 5 });
    // Without a color, the next one of the palette, as WhatsApp assigns them.
    const fresh = (await api.call('createLabel', { body: { name: 'Novo cliente' } })).data;
    assert.deepEqual(fresh, { id: '2', name: 'Novo cliente', color: 1 });
    assert.deepEqual(phoneLabels(), [{ id: '1', name: 'Pago', color: 5, chats: [] }, { id: '2', name: 'Novo cliente', color: 1, chats: [] }]);
    assert.deepEqual((await api.call('listLabels')).data, [paid, fresh]);
    await assert.rejects(api.call('createLabel', { body: { name: 'pago' } }), refusedWith(409, 'label_exists'));

    const labelled = await api.call('addLabelToChat', { params: { labelId: paid.id }, body: { to: ana.number } });
    assert.deepEqual([labelled.data.id, labelled.data.labels], [ana.jid, ['1']]);
    await api.call('addLabelToChat', { params: { labelId: paid.id }, body: { to: bia.jid } });
    await api.call('addLabelToChat', { params: { labelId: fresh.id }, body: { to: bia.number } });
    assert.deepEqual(phoneLabels().map((l) => [l.id, l.chats]), [['1', [ana.jid, bia.jid].sort()], ['2', [bia.jid]]]);
    const one = (await api.call('getLabel', { params: { labelId: paid.id } })).data;
    assert.deepEqual(one, { ...paid, chats: [ana.jid, bia.jid].sort() });
    const chatLabels = async (jid: string) => (await api.call('listChats')).data.find((c) => c.id === jid)?.labels;
    assert.deepEqual(await chatLabels(bia.jid), ['1', '2']);

    await api.call('removeLabelFromChat', { params: { labelId: paid.id, number: bia.number } });
    assert.deepEqual(phoneLabels().map((l) => [l.id, l.chats]), [['1', [ana.jid]], ['2', [bia.jid]]]);
    assert.deepEqual(await chatLabels(bia.jid), ['2']);
    await assert.rejects(api.call('removeLabelFromChat', { params: { labelId: paid.id, number: bia.number } }), refusedWith(404, 'label_not_on_chat'));

    await api.call('deleteLabel', { params: { labelId: fresh.id } });
    assert.deepEqual(phoneLabels().map((l) => l.id), ['1']);
    assert.deepEqual((await api.call('listLabels')).data, [paid]);
    assert.deepEqual(await chatLabels(bia.jid), []);
    await assert.rejects(api.call('getLabel', { params: { labelId: fresh.id } }), refusedWith(404, 'label_not_found'));
    await assert.rejects(api.call('deleteLabel', { params: { labelId: fresh.id } }), refusedWith(404, 'label_not_found'));
    await assert.rejects(api.call('addLabelToChat', { params: { labelId: '99' }, body: { to: ana.number } }), refusedWith(404, 'label_not_found'));

    // The phone's own label change reaches Parley's chat list too.
    await sim.simulator.changeAppState(shop.number, [{ kind: 'label-chat', id: paid.id, jid: bia.jid, labeled: true }]);
    await t.waitFor(async () => JSON.stringify(await chatLabels(bia.jid)) === '["1"]', 10_000, 'the phone\'s label on the chat');

    // Bad input: clear 400s, nothing reaches the phone.
    const before = JSON.stringify(sim.simulator.phoneState(shop.number));
    await assert.rejects(api.call('createLabel', { body: { name: '' } }), refusedWith(400, 'validation_failed'));
    await assert.rejects(api.call('createLabel', { body: { name: 'Cor', color: 20 } }), refusedWith(400, 'validation_failed'));
    await assert.rejects(api.call('addLabelToChat', { params: { labelId: paid.id }, body: { to: 'ninguém' } }), refusedWith(400, 'validation_failed'));
    await assert.rejects(api.call('removeLabelFromChat', { params: { labelId: paid.id, number: 'x' } }), refusedWith(400, 'validation_failed'));
    assert.equal(JSON.stringify(sim.simulator.phoneState(shop.number)), before);
  });

  it('refuses a 21st label with 409 label_limit, and the phone keeps 20', { timeout: 90_000 }, async () => {
    const { sim } = env;
    const shop = sim.simulator.createAccount({ number: '5511987658511', pushName: 'Loja', business: true });
    const { api } = await env.linkByQr(shop.number, 'label-limit');
    for (let i = 1; i <= 20; i++) await api.call('createLabel', { body: { name: `Etiqueta ${i}` } });
    await assert.rejects(api.call('createLabel', { body: { name: 'Etiqueta 21' } }), refusedWith(409, 'label_limit'));
    const onPhone = sim.simulator.phoneState(shop.number).labels;
    assert.equal(onPhone.length, 20);
    // The palette's 20 colors, one each.
    assert.deepEqual(onPhone.map((l) => l.color), Array.from({ length: 20 }, (_, i) => i));
  });
});
