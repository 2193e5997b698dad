import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';

/**
 * Issue 25, defect 12, on the simulator: a story posted with no `statusJidList` went to every stored contact —
 * strangers who only wrote included — and skipped contacts the phone saved by LID. It goes to the address book
 * the phone synced (app-state contact actions), as WhatsApp's apps share with "My contacts": a contact saved by
 * number, one saved by LID whose action names its number, and one saved by LID alone (sent to her LID), all
 * decrypt it on their phones; a stranger whose message made a stored contact (push name only) gets nothing.
 */
describe('WhatsApp stories on the simulator: the default audience (issue 25, defect 12), and nothing left after the instance', () => {
  const env = useSimulatedWhatsApp();

  it('reaches the address book the phone synced, contacts saved by number and by LID, never a stranger who wrote', { timeout: 90_000 }, async () => {
    const { sim, t } = env;
    const shop = sim.simulator.createAccount({ number: '5511987656141', pushName: 'Padaria' });
    const ana = sim.simulator.createAccount({ number: '5511987656142', pushName: 'Ana' });
    const maria = sim.simulator.createAccount({ number: '5511987656143', pushName: 'Maria' });
    const stranger = sim.simulator.createAccount({ number: '5511987656144', pushName: 'Zé' });
    const bia = sim.simulator.createAccount({ number: '5511987656145', pushName: 'Bia' });
    await sim.simulator.changeAppState(shop.number, [
      { kind: 'contact', jid: ana.jid, fullName: 'Ana Souza' },
      // Saved under her LID, the action naming her number (WhatsApp's contact action `pnJid`).
      { kind: 'contact', jid: maria.lid, fullName: 'Maria Lima', pnJid: maria.jid },
      // Saved under her LID alone: Parley stores a LID-only contact.
      { kind: 'contact', jid: bia.lid, fullName: 'Bia Reis' },
    ]);
    const { api } = await env.linkByQr(shop.number, 'story-audience');
    await sim.simulator.sendText(stranger.number, shop.number, 'Oi, vocês abrem amanhã?');
    const contacts = await t.waitFor(async () => {
      const found = (await api.call('listContacts')).data;
      const names = found.map((c) => c.name);
      return names.includes('Ana Souza') && names.includes('Maria Lima') && names.includes('Bia Reis') && found.some((c) => c.id === stranger.jid) ? found : undefined;
    }, 20_000, 'the synced address book and the stranger who wrote, as stored contacts');
    assert.equal(contacts.find((c) => c.id === stranger.jid)?.name, '', 'the stranger has a push name only');

    const story = (await api.call('postTextStatus', { body: { text: 'Pão quentinho às 7h' } })).data;
    assert.equal(contacts.find((c) => c.name === 'Bia Reis')?.id, bia.lid, 'Bia is a LID-only contact');
    // Bia's number was never told (no message, no action naming it): she stays under her LID, which WhatsApp routes.
    assert.deepEqual([...story.statusJidList].sort(), [ana.jid, maria.jid, bia.lid].sort(), 'the answer names the audience, Maria under her number, Bia by LID');
    for (const fan of [ana, maria, bia]) {
      const got = await t.waitFor(() => sim.simulator.received(fan.number).find((m) => m.id === story.id), 15_000, `${fan.number}'s phone to decrypt the story`);
      assert.deepEqual([got.group, got.fromNumber], ['status@broadcast', shop.number]);
      assert.equal((got.message.extendedTextMessage as { text?: string } | undefined)?.text, 'Pão quentinho às 7h');
    }
    // The phones that got it decrypted it already: a stranger's copy would have arrived with them.
    assert.equal(sim.simulator.received(stranger.number).some((m) => m.id === story.id), false, 'the stranger is not in the audience');
  });

  it('leaves none of the channel\'s labels or stories behind when the instance is deleted', { timeout: 90_000 }, async () => {
    const { sim, t } = env;
    const shop = sim.simulator.createAccount({ number: '5511987656151', pushName: 'Padaria' });
    const ana = sim.simulator.createAccount({ number: '5511987656152', pushName: 'Ana' });
    await sim.simulator.changeAppState(shop.number, [{ kind: 'label', id: '4', name: 'Pagamento pendente', color: 2 }, { kind: 'label-chat', id: '4', jid: ana.jid, labeled: true }]);
    const { api } = await env.linkByQr(shop.number, 'deleted-with-labels');
    const { id } = (await api.call('getInstance')).instance as { id: string };
    await t.waitFor(async () => JSON.stringify(await api.call('listLabels')).includes('Pagamento pendente'), 20_000, 'the phone\'s label');
    await api.call('postTextStatus', { body: { text: 'Fechado hoje', statusJidList: [ana.jid] } });
    const state = t.server.context.storage.state;
    const kinds = ['labels', 'label-chats', 'stories'];
    const left = async () => (await Promise.all(kinds.map((k) => state.list(`${id}:baileys.${k}`)))).map((docs) => docs.length);
    assert.deepEqual(await left(), [1, 1, 1], 'kept under the instance while it lives');

    assert.equal((await t.client().call('adminDeleteInstance', { params: { key: api.key } })).status, 200);
    assert.deepEqual(await left(), [0, 0, 0]);
    for (const k of kinds) assert.deepEqual(await state.list(`baileys.${id}.${k}`), [], `nothing under the old ${k} namespace either`);
  });
});
