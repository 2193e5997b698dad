import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ParleyApiError } from '@parley/client';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';

/**
 * Issue 25: the contact routes of spec 4.9 not covered elsewhere (saving, reading and removing a contact, clearing
 * its session, resolving LIDs) through Parley's REST API, on the channel's real Baileys socket against the
 * simulator: the phone's address book (its app state) shows each change, and Parley's answers follow. Blocking,
 * the blocked list and about texts are in whatsapp-simulator-profile.test.ts.
 */
describe('WhatsApp contacts managed through the REST API, as the phone sees them', () => {
  const env = useSimulatedWhatsApp();
  const refusedWith = (status: number, code: string) => (e: unknown) => e instanceof ParleyApiError && e.status === status && e.code === code;

  it('saves, renames and removes a contact: the phone\'s address book follows, GET contacts answers the name', { timeout: 90_000 }, async () => {
    const { sim } = env;
    const shop = sim.simulator.createAccount({ number: '5511987658601', pushName: 'Loja' });
    const ana = sim.simulator.createAccount({ number: '5511987658602', pushName: 'Ana' });
    const { api } = await env.linkByQr(shop.number, 'contacts');
    const book = () => sim.simulator.phoneState(shop.number).contacts;

    const saved = await api.call('saveContact', { body: { number: ana.number, name: 'Ana Souza' } });
    assert.deepEqual([saved.data.id, saved.data.name], [ana.jid, 'Ana Souza']);
    assert.deepEqual(book()[ana.jid], { fullName: 'Ana Souza' });
    assert.equal((await api.call('getContact', { params: { number: ana.number } })).data.name, 'Ana Souza');
    const renamed = await api.call('saveContact', { body: { number: ana.jid, name: 'Ana S. Costa' } });
    assert.equal(renamed.data.name, 'Ana S. Costa');
    assert.deepEqual(book()[ana.jid], { fullName: 'Ana S. Costa' });
    assert.ok((await api.call('listContacts')).data.some((c) => c.id === ana.jid && c.name === 'Ana S. Costa'));
    // A number without an account can be saved too, as on a phone.
    const stranger = '5511900008888@s.whatsapp.net';
    await api.call('saveContact', { body: { number: '5511900008888', name: 'Fornecedor' } });
    assert.deepEqual(book()[stranger], { fullName: 'Fornecedor' });

    await api.call('removeContact', { params: { number: ana.number } });
    assert.equal(book()[ana.jid], undefined, 'the phone\'s address book lost the contact');
    await assert.rejects(api.call('getContact', { params: { number: ana.number } }), refusedWith(404, 'contact_not_found'));
    assert.ok(!(await api.call('listContacts')).data.some((c) => c.id === ana.jid));
    await assert.rejects(api.call('removeContact', { params: { number: ana.number } }), refusedWith(404, 'contact_not_found'));

    // Bad input: clear 400s, the phone's address book unchanged.
    const before = JSON.stringify(sim.simulator.phoneState(shop.number));
    await assert.rejects(api.call('saveContact', { body: { number: '120363000000000001@g.us', name: 'Grupo' } }), refusedWith(400, 'validation_failed'));
    await assert.rejects(api.call('saveContact', { body: { number: ana.number, name: '' } }), refusedWith(400, 'validation_failed'));
    await assert.rejects(api.call('saveContact', { body: { number: 'ana', name: 'Ana' } }), refusedWith(400, 'validation_failed'));
    await assert.rejects(api.call('removeContact', { params: { number: 'status@broadcast' } }), refusedWith(400, 'validation_failed'));
    assert.equal(JSON.stringify(sim.simulator.phoneState(shop.number)), before);
  });

  it('clears a session (the next message starts a new one the phone decrypts) and resolves a contact\'s LID', { timeout: 90_000 }, async () => {
    const { sim, t } = env;
    const shop = sim.simulator.createAccount({ number: '5511987658611', pushName: 'Loja' });
    const bia = sim.simulator.createAccount({ number: '5511987658612', pushName: 'Bia' });
    const { api } = await env.linkByQr(shop.number, 'sessions');
    const send = async (text: string) => {
      const id = (await api.call('sendText', { body: { to: bia.number, text } })).data.key.id;
      return t.waitFor(() => sim.simulator.received(bia.number).find((m) => m.id === id), 10_000, 'the phone to decrypt it');
    };
    // Which encryption the companion's copy for Bia's phone took: `pkmsg` starts a session, `msg` uses one.
    type Node = { tag: string; attrs: Record<string, string>; content?: unknown };
    const copies = (node: Node): Node[] => (Array.isArray(node.content) ? (node.content as Node[]).flatMap((n) => (n.tag === 'to' ? [n] : copies(n))) : []);
    const encType = (id: string) => {
      const stanza = sim.simulator.stanzas(shop.number, 'message').find((s) => s.stanza.attrs.id === id)!.stanza as Node;
      const copy = copies(stanza).find((to) => to.attrs.jid === bia.jid);
      return (copy?.content as Node[] | undefined)?.find((n) => n.tag === 'enc')?.attrs.type;
    };
    const first = await send('Primeira');
    assert.equal(encType(first.id), 'pkmsg');
    // Once Bia's phone answered, the session is established: the companion's next copy is a plain `msg`.
    const reply = await sim.simulator.sendText(bia.number, shop.number, 'Oi!');
    await t.waitFor(async () => (await api.call('listChatMessages', { params: { jid: bia.jid } })).data.some((m) => m.key.id === reply.id), 20_000, 'the answer');
    const second = await send('Segunda');
    assert.equal(encType(second.id), 'msg');

    assert.equal((await api.call('clearContactSession', { params: { number: bia.number } })).status, 200);
    const third = await send('Depois da limpeza');
    assert.equal(third.text, 'Depois da limpeza');
    assert.equal(encType(third.id), 'pkmsg', 'a new session');

    const resolved = await api.call('resolveLids', { body: { lids: [bia.lid, '99999999999999@lid'] } });
    assert.deepEqual(resolved.data, [{ lid: bia.lid, jid: bia.jid }, { lid: '99999999999999@lid', jid: null }]);
    await assert.rejects(api.call('resolveLids', { body: { lids: [bia.jid] } }), refusedWith(400, 'validation_failed'));
    await assert.rejects(api.call('clearContactSession', { params: { number: '120363000000000001@g.us' } }), refusedWith(400, 'validation_failed'));
  });
});
