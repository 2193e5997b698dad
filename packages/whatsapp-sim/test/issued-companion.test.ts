import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BufferJSON } from '@whiskeysockets/baileys';
import type { IssuedCompanion, RunningSimulator } from '../src/index.js';
import { TestClient, waitFor, useSimulator } from './client.js';

describe('issued companions: linked-device credentials without a QR', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; });
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${sim.controlUrl}${path}`, {
      method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, text: await res.text() };
  };

  /** A TestClient holding the issued state, as an app that stored it would. */
  const clientWith = async (issued: IssuedCompanion): Promise<TestClient> => {
    const client = new TestClient(sim.url);
    Object.assign(client.auth.creds, issued.creds);
    await client.auth.keys.set(issued.keys);
    return client;
  };
  const encryptSets = (number: string) => sim.simulator.stanzas(number, 'iq')
    .filter((s) => s.stanza.attrs.xmlns === 'encrypt' && s.stanza.attrs.type === 'set');

  it('issued over the control API, Baileys logs in at once (no QR, no 515, no prekey upload) and messages both ways', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987659001', pushName: 'Issued' });
    const friend = sim.simulator.createAccount({ number: '5511987659002', pushName: 'Friend' });
    const res = await call('POST', `/accounts/${me.number}/companions`, { preKeys: 30 });
    assert.equal(res.status, 201, res.text);
    const issued = JSON.parse(res.text, BufferJSON.reviver) as IssuedCompanion;
    assert.deepEqual(issued.device, { id: 1, jid: `${me.number}:1@s.whatsapp.net`, lid: `${me.lid.split('@')[0]}:1@lid` });
    assert.equal(issued.creds.me?.id, issued.device.jid);
    // A synced client knows its push name (from the phone's critical_block): Baileys needs it to send presence.
    assert.equal(issued.creds.me?.name, 'Issued');
    assert.ok(Buffer.isBuffer(issued.creds.noiseKey.private) && Buffer.isBuffer(issued.creds.account?.deviceSignature));
    assert.equal(Object.keys(issued.keys['pre-key']).length, 30);
    assert.equal(issued.creds.nextPreKeyId, 31);
    assert.equal(issued.creds.accountSyncCounter, 1);
    assert.equal(Object.keys(issued.keys['app-state-sync-key']).length, 1);
    const device = sim.simulator.getAccount(me.number).devices.find((d) => d.id === 1);
    assert.equal(device?.platform, 'issued');
    assert.equal(device?.online, false);

    const client = await clientWith(issued);
    client.connect();
    await waitFor(() => client.opened, 'the issued device to log in', 30_000);
    assert.deepEqual(client.seen.qrs, []);
    assert.deepEqual(client.closes, []);
    assert.deepEqual(sim.simulator.pendingClients(), []);
    assert.ok(sim.simulator.getAccount(me.number).devices.find((d) => d.id === 1)?.online);
    // The server already held 30 of its prekeys: Baileys counted them and uploaded none.
    assert.ok(sim.simulator.stanzas(me.number, 'iq').some((s) => s.stanza.attrs.xmlns === 'encrypt'), 'Baileys asked for its prekey count');
    assert.deepEqual(encryptSets(me.number), []);

    const fromPhone = await sim.simulator.sendText(friend.number, me.number, 'hello issued device');
    await waitFor(() => client.seen.upserts.some((m) => m.key.id === fromPhone.id), 'the phone\'s message at Baileys');
    assert.equal(client.seen.upserts.find((m) => m.key.id === fromPhone.id)!.message?.conversation, 'hello issued device');
    const reply = await client.sock!.sendMessage(friend.jid, { text: 'hello phone' });
    await waitFor(() => sim.simulator.received(friend.number).some((m) => m.id === reply!.key.id), 'the reply at the phone');
    const got = sim.simulator.received(friend.number).find((m) => m.id === reply!.key.id)!;
    assert.equal(got.text, 'hello phone');
    assert.equal(got.fromNumber, me.number);
    // The friend's own phone can open a session to the issued device from a prekey the server handed out.
    assert.ok(sim.simulator.sent(friend.number).some((m) => m.id === fromPhone.id && m.receipts.some((r) => r.from === issued.device.jid)));
    client.end();
  });

  it('the same credentials log in again after the socket ends, as a restarted app does', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987659011' });
    const client = await clientWith(sim.simulator.issueCompanion(me.number, { preKeys: 10 }));
    client.connect();
    await waitFor(() => client.opened, 'the first login', 30_000);
    client.end();
    await waitFor(() => !sim.simulator.getAccount(me.number).devices[0]!.online, 'the device offline');
    client.connect();
    await waitFor(() => client.opened, 'the second login', 30_000);
    assert.deepEqual(client.seen.qrs, []);
    assert.deepEqual(encryptSets(me.number), []);
    client.end();
  });

  it('synced: false leaves the first login its history and app-state key, as after a QR link', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987659021', pushName: 'Fresh' });
    const issued = sim.simulator.issueCompanion(me.number, { synced: false, preKeys: 10, platform: 'bench' });
    assert.equal(issued.creds.accountSyncCounter, 0);
    assert.equal(issued.creds.myAppStateKeyId, undefined);
    assert.deepEqual(issued.keys['app-state-sync-key'], {});
    const client = await clientWith(issued);
    client.connect();
    await waitFor(() => client.opened, 'the login', 30_000);
    await waitFor(() => client.seen.histories.length > 0, 'the initial history', 30_000);
    await waitFor(() => client.auth.creds.myAppStateKeyId !== undefined, 'the app-state key share');
    assert.equal(sim.simulator.getAccount(me.number).devices[0]!.platform, 'bench');
    client.end();
  });

  it('a second issued device of the account gets the next id; bad requests answer 400 and issue nothing', { timeout: 30_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987659031' });
    assert.equal(sim.simulator.issueCompanion(me.number, { preKeys: 6 }).device.id, 1);
    assert.equal(sim.simulator.issueCompanion(me.number, { preKeys: 6, announce: false }).device.id, 2);
    for (const [body, field] of [
      [{ preKeys: 5 }, 'preKeys'], [{ preKeys: 2001 }, 'preKeys'], [{ preKeys: 'many' }, 'preKeys'], [{ preKeys: 7.5 }, 'preKeys'],
      [{ synced: 'yes' }, 'synced'], [{ announce: 1 }, 'announce'], [{ platform: '' }, 'platform'], [{ platform: 7 }, 'platform'],
    ] as const) {
      const res = await call('POST', `/accounts/${me.number}/companions`, body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.deepEqual(JSON.parse(res.text).error.details.fields.map((f: { field: string }) => f.field), [`body.${field}`], res.text);
    }
    assert.deepEqual(sim.simulator.getAccount(me.number).devices.map((d) => d.id), [1, 2]);
    const unknown = await call('POST', '/accounts/5511987659099/companions', {});
    assert.equal(unknown.status, 404);
  });
});
