import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BaileysEventMap, Contact } from '@whiskeysockets/baileys';
import type { RunningSimulator } from '../src/index.js';
import { TestClient, waitFor, useSimulator } from './client.js';

type Events = { contacts: Partial<Contact>[]; chats: BaileysEventMap['chats.update']; labels: Array<BaileysEventMap['labels.edit']>; associations: Array<BaileysEventMap['labels.association']> };

/** Records the app-state events of every socket the client opens. */
function recordAppState(client: TestClient): Events {
  const events: Events = { contacts: [], chats: [], labels: [], associations: [] };
  const connect = client.connect.bind(client);
  client.connect = (extra) => {
    const sock = connect(extra);
    sock.ev.on('contacts.upsert', (c) => events.contacts.push(...c));
    sock.ev.on('contacts.update', (c) => events.contacts.push(...c));
    // Baileys' event buffer folds a chat's updates into its upsert when both land in one flush (a loaded machine).
    sock.ev.on('chats.upsert', (c) => events.chats.push(...c));
    sock.ev.on('chats.update', (c) => events.chats.push(...c));
    sock.ev.on('labels.edit', (l) => events.labels.push(l));
    sock.ev.on('labels.association', (a) => events.associations.push(a));
    return sock;
  };
  return events;
}

describe('app state: the phone\'s patches with valid MACs reach Baileys', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; });

  it('contacts, pin, mute, archive and labels set before linking arrive on the initial sync, the chat state in the history; later changes arrive live', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987659201' });
    const seeded = await sim.simulator.seedHistory(me.number, { chats: 3, messagesPerChat: 1 });
    const [ana, bia, caio] = seeded.chats.map((c) => c.jid) as [string, string, string];
    const muteUntil = Date.now() + 3_600_000;
    await sim.simulator.changeAppState(me.number, [
      { kind: 'contact', jid: ana, fullName: 'Ana Souza', firstName: 'Ana' },
      { kind: 'contact', jid: bia, fullName: 'Bia Lima' },
      { kind: 'pin', jid: bia, pinned: true },
      { kind: 'mute', jid: bia, muteEndTimestamp: muteUntil },
      { kind: 'archive', jid: caio, archived: true },
      { kind: 'read', jid: caio, read: false },
      { kind: 'label', id: '1', name: 'Cliente novo', color: 3 },
      { kind: 'label-chat', id: '1', jid: bia, labeled: true },
    ]);
    await assert.rejects(sim.simulator.changeAppState(me.number, []), /changes must be/);
    await assert.rejects(sim.simulator.changeAppState(me.number, [{ kind: 'pin', jid: ana } as never]), /pin.pinned must be a boolean/);
    await assert.rejects(sim.simulator.changeAppState(me.number, [{ kind: 'star' } as never]), /kind must be/);
    // Baileys checks patch and snapshot MACs only when asked to (its default is off).
    const client = new TestClient(sim.url, { appStateMacVerification: { patch: true, snapshot: true } });
    const events = recordAppState(client);
    await client.link((qr) => sim.simulator.scanQr(me.number, qr));
    await waitFor(() => client.auth.creds.accountSyncCounter === 1, 'the initial sync to complete', 15_000);
    await waitFor(() => events.associations.length > 0, 'the app state events');
    // Baileys folds what its initial sync brings into the history set when it has one.
    const contacts = [...events.contacts, ...client.seen.histories.flatMap((h) => h.contacts)];
    assert.ok(contacts.some((c) => c.id === ana && c.name === 'Ana Souza'), JSON.stringify(contacts));
    assert.ok(contacts.some((c) => c.id === bia && c.name === 'Bia Lima'));
    // The history carries each chat's state, as WhatsApp's does: whatever Baileys does with the conditional
    // app-state updates of its initial sync (held while the history came in another flush), the state is there.
    const history = (jid: string) => client.seen.histories.flatMap((h) => h.chats).find((c) => c.id === jid);
    await waitFor(() => !!history(bia) && !!history(caio), 'the history set');
    assert.ok(Number(history(bia)?.pinned) > 0, JSON.stringify(history(bia)));
    // In Unix seconds as the history carries it, or in milliseconds when Baileys merged the mute action into the set.
    assert.ok([Math.floor(muteUntil / 1000), muteUntil].includes(Number(history(bia)?.muteEndTime)), JSON.stringify(history(bia)));
    assert.deepEqual([history(caio)?.archived, history(caio)?.markedAsUnread], [true, true]);
    assert.deepEqual([!!history(ana)?.pinned, !!history(ana)?.archived, !!history(ana)?.muteEndTime], [false, false, false]);
    assert.deepEqual(events.labels.map((l) => [l.id, l.name, l.color]), [['1', 'Cliente novo', 3]]);
    assert.deepEqual(events.associations.map((a) => [a.type, a.association.labelId, a.association.chatId]), [['add', '1', bia]]);

    // Changes while the client is online: the server_sync notification makes it fetch the new patches.
    await sim.simulator.changeAppState(me.number, [{ kind: 'contact', jid: ana, fullName: 'Ana S. Costa' }, { kind: 'archive', jid: ana, archived: true }]);
    await waitFor(() => events.contacts.some((c) => c.id === ana && c.name === 'Ana S. Costa'), 'the live contact change');
    await waitFor(() => events.chats.some((c) => c.id === ana && c.archived === true), 'the live archive');
    // The client's own change is MAC-checked by the phone and chained: a later phone change still verifies.
    await client.sock!.chatModify({ archive: false, lastMessages: [{ key: { remoteJid: ana, id: 'X', fromMe: false }, messageTimestamp: 1 }] }, ana);
    await sim.simulator.changeAppState(me.number, [{ kind: 'pin', jid: ana, pinned: true }]);
    await waitFor(() => events.chats.some((c) => c.id === ana && c.pinned), 'the pin after the client\'s own patch');
    client.end();
  });

  it('a companion\'s own patch reaches the account\'s other companions whole: a rename on one shows on the other, MACs verified', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987659211', pushName: 'Loja' });
    const verify = { appStateMacVerification: { patch: true, snapshot: true } };
    const [first, second] = [new TestClient(sim.url, verify), new TestClient(sim.url, verify)];
    const names: string[] = [];
    const connect = second.connect.bind(second);
    second.connect = (extra) => {
      const sock = connect(extra);
      sock.ev.on('creds.update', (c) => { if (c.me?.name) names.push(c.me.name); });
      return sock;
    };
    for (const client of [first, second]) {
      await client.link((qr) => sim.simulator.scanQr(me.number, qr));
      await waitFor(() => client.auth.creds.accountSyncCounter === 1, 'the initial sync to complete');
    }
    await first.sock!.updateProfileName('Loja do Centro');
    assert.equal(sim.simulator.profile(me.number).pushName, 'Loja do Centro');
    await waitFor(() => names.includes('Loja do Centro'), 'the rename on the other companion');
    // The phone's next change still chains on for both.
    await sim.simulator.setProfile(me.number, { name: 'Loja Central' });
    await waitFor(() => names.includes('Loja Central'), 'the phone\'s rename after the companion\'s');
    first.end();
    second.end();
  });

  it('the phone keeps what a companion changes: contacts saved and removed, labels and their chats, pins, read marks and deleted chats', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987659221', business: true });
    const seeded = await sim.simulator.seedHistory(me.number, { chats: 2, messagesPerChat: 1, unreadPerChat: 1 });
    const [ana, bia] = seeded.chats.map((c) => c.jid) as [string, string];
    const client = new TestClient(sim.url, { appStateMacVerification: { patch: true, snapshot: true } });
    await client.link((qr) => sim.simulator.scanQr(me.number, qr));
    await waitFor(() => client.auth.creds.accountSyncCounter === 1, 'the initial sync to complete');
    const sock = client.sock!;
    const last = (jid: string) => [{ key: { remoteJid: jid, id: seeded.chats.find((c) => c.jid === jid)!.messageIds[0]!, fromMe: false }, messageTimestamp: 1 }];
    await sock.addOrEditContact(ana, { fullName: 'Ana Souza', saveOnPrimaryAddressbook: true });
    await sock.addOrEditContact(bia, { fullName: 'Bia Lima', saveOnPrimaryAddressbook: true });
    await sock.removeContact(bia);
    await sock.addLabel(me.jid, { id: '1', name: 'Pago', color: 2, deleted: false });
    await sock.addLabel(me.jid, { id: '2', name: 'Novo', color: 4, deleted: false });
    await sock.addChatLabel(ana, '1');
    await sock.addChatLabel(bia, '1');
    await sock.removeChatLabel(bia, '1');
    await sock.addLabel(me.jid, { id: '2', name: 'Novo', color: 4, deleted: true });
    await sock.chatModify({ pin: true }, ana);
    await sock.chatModify({ markRead: true, lastMessages: last(ana) }, ana);
    await sock.chatModify({ delete: true, lastMessages: last(bia) }, bia);
    const state = sim.simulator.phoneState(me.number);
    assert.deepEqual(state.contacts, { [ana]: { fullName: 'Ana Souza' } });
    assert.deepEqual(state.labels, [{ id: '1', name: 'Pago', color: 2, chats: [ana] }]);
    assert.ok(Number(state.chats[ana]?.pinned) > 0, JSON.stringify(state.chats[ana]));
    assert.deepEqual([state.chats[ana]?.markedAsUnread, state.chats[ana]?.unreadCount], [false, 0]);
    assert.equal(state.chats[bia], undefined, 'the deleted chat is gone from the phone');
    client.end();
  });
});
