import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';

/**
 * A group Parley creates where WhatsApp's server makes new groups LID-addressed (the simulator's
 * `groupAddressing: 'lid'`): the creation's answer, GET and the participant routes name members by number as in
 * whatsapp-sim-lid-groups (a group a phone creates), and Parley's message reaches every member's phone.
 */
describe('a WhatsApp group Parley creates on a server that addresses new groups by LID', () => {
  const env = useSimulatedWhatsApp({}, {}, { groupAddressing: 'lid' });

  it('the answer, GET and the participant routes name members by number; every member\'s phone decrypts Parley\'s message', { timeout: 90_000 }, async () => {
    const { sim, t } = env;
    const shop = sim.simulator.createAccount({ number: '5511987659311', pushName: 'Loja' });
    const bob = sim.simulator.createAccount({ number: '5511987659312', pushName: 'Bob' });
    const carol = sim.simulator.createAccount({ number: '5511987659313', pushName: 'Carol' });
    const { api } = await env.linkByQr(shop.number, 'lid-group-creator');

    const group = (await api.call('createGroup', { body: { name: 'Fornecedores', participants: [bob.number, carol.jid] } })).data;
    assert.equal(sim.simulator.getGroup(group.id).addressingMode, 'lid');
    const members = [`${shop.jid} superadmin`, `${bob.jid} null`, `${carol.jid} null`].sort();
    assert.deepEqual([group.owner, group.participants.map((p) => `${p.id} ${p.admin}`).sort()], [shop.jid, members]);
    const read = (await api.call('getGroup', { params: { groupJid: group.id } })).data;
    assert.deepEqual([read.owner, read.participants.map((p) => `${p.id} ${p.admin}`).sort()], [shop.jid, members]);

    const sent = (await api.call('sendText', { body: { to: group.id, text: 'Pedido novo' } })).data;
    for (const member of [bob, carol]) {
      const got = await t.waitFor(() => sim.simulator.received(member.number).find((m) => m.id === sent.key.id), 20_000, `${member.pushName}'s phone to decrypt it`);
      assert.deepEqual([got.text, got.group], ['Pedido novo', group.id]);
    }
    const promoted = (await api.call('changeGroupRole', { params: { groupJid: group.id }, query: { action: 'promote' }, body: { participants: [bob.number] } })).data;
    assert.deepEqual(promoted, [{ jid: bob.jid, status: '200' }]);
  });
});
