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

  it('contacts, pin, mute and labels set before linking arrive on the initial sync; later changes (archive too) arrive live', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987659201' });
    // Baileys applies an archive on its initial sync only to a chat it knows (from the history).
    const seeded = await sim.simulator.seedHistory(me.number, { chats: 2, messagesPerChat: 1 });
    const [ana, bia] = seeded.chats.map((c) => c.jid) as [string, string];
    const muteUntil = Date.now() + 3_600_000;
    await sim.simulator.changeAppState(me.number, [
      { kind: 'contact', jid: ana, fullName: 'Ana Souza', firstName: 'Ana' },
      { kind: 'contact', jid: bia, fullName: 'Bia Lima' },
      { kind: 'pin', jid: bia, pinned: true },
      { kind: 'mute', jid: bia, muteEndTimestamp: muteUntil },
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
    const chats = () => [...events.chats, ...client.seen.histories.flatMap((h) => h.chats)];
    assert.ok(contacts.some((c) => c.id === ana && c.name === 'Ana Souza'), JSON.stringify(contacts));
    assert.ok(contacts.some((c) => c.id === bia && c.name === 'Bia Lima'));
    // Baileys may hand the chat changes over in a later flush than the label associations.
    await waitFor(() => chats().some((c) => c.id === bia && c.pinned), 'the pin');
    await waitFor(() => chats().some((c) => c.id === bia && Number(c.muteEndTime) === muteUntil), 'the mute');
    assert.deepEqual(events.labels.map((l) => [l.id, l.name, l.color]), [['1', 'Cliente novo', 3]]);
    assert.deepEqual(events.associations.map((a) => [a.type, a.association.labelId, a.association.chatId]), [['add', '1', bia]]);

    // Changes while the client is online: the server_sync notification makes it fetch the new patches.
    // (An archive is live-only here: on an initial sync Baileys applies it only if the chat's history was
    // processed first, which races with the app-state sync in Baileys itself.)
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
});
