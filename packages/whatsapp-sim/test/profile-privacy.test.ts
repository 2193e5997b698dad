import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Contact } from '@whiskeysockets/baileys';
import type { RunningSimulator } from '../src/index.js';
import { TestClient, waitFor, useSimulator } from './client.js';
import { JPEG } from './jpeg.js';

describe('profile, block list and privacy settings with Baileys', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; }, { media: true });

  it('the client changes its name, about text and picture; it reads a phone\'s; the phone\'s picture changes arrive', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987659401', pushName: 'Loja' });
    const friend = sim.simulator.createAccount({ number: '5511987659402', pushName: 'Ana' });
    const client = new TestClient(sim.url);
    const contacts: Partial<Contact>[] = [];
    const names: string[] = [];
    const connect = client.connect.bind(client);
    client.connect = (extra) => {
      const sock = connect(extra);
      sock.ev.on('contacts.update', (c) => contacts.push(...c));
      sock.ev.on('creds.update', (c) => { if (c.me?.name) names.push(c.me.name); });
      return sock;
    };
    await client.link((qr) => sim.simulator.scanQr(me.number, qr));
    await waitFor(() => client.auth.creds.myAppStateKeyId !== undefined, 'the app-state key');
    const sock = client.sock!;

    await sock.updateProfileStatus('Aberto das 8h às 18h');
    await sock.updateProfileName('Loja Nova');
    await sock.updateProfilePicture(me.jid, JPEG);
    const profile = sim.simulator.profile(me.number);
    assert.deepEqual([profile.pushName, profile.status], ['Loja Nova', 'Aberto das 8h às 18h']);
    assert.ok(profile.statusSetAt! > 0);
    assert.ok(profile.picture, 'the picture is set');
    const url = await sock.profilePictureUrl(me.jid, 'image');
    assert.equal(url, profile.picture.url);
    // Baileys resizes it to 640×640: the host serves that JPEG.
    const served = Buffer.from(await (await fetch(url!)).arrayBuffer());
    assert.deepEqual(served, sim.simulator.profilePicture(me.number));
    assert.deepEqual([served[0], served[1]], [0xff, 0xd8]);
    await sock.removeProfilePicture(me.jid);
    assert.equal(sim.simulator.profile(me.number).picture, null);
    await assert.rejects(sock.profilePictureUrl(me.jid, 'image'), /item-not-found/);

    // The phone's own changes: the about text through usync, the picture announced, the name synced to its companion.
    await sim.simulator.setProfile(friend.number, { status: 'Em férias', picture: JPEG });
    const [status] = (await sock.fetchStatus(friend.jid)) as unknown as Array<{ status: { status: string } }>;
    assert.equal(status!.status.status, 'Em férias');
    await waitFor(() => contacts.some((c) => c.id === friend.jid && c.imgUrl === 'changed'), 'the picture notification');
    assert.equal(await sock.profilePictureUrl(friend.jid, 'image'), sim.simulator.profile(friend.number).picture!.url);
    await sim.simulator.setProfile(me.number, { name: 'Loja do Centro' });
    await waitFor(() => names.includes('Loja do Centro'), 'the phone\'s new name on the companion');

    // Privacy hides the picture and the about text.
    sim.simulator.setPrivacy(friend.number, { profile: 'none', status: 'none' });
    await assert.rejects(sock.profilePictureUrl(friend.jid, 'image'), /not-authorized/);
    const [hidden] = (await sock.fetchStatus(friend.jid)) as unknown as Array<{ status: { status: string } }>;
    assert.equal(hidden!.status.status, '');
    await assert.rejects(sim.simulator.setProfile(friend.number, { status: 'x'.repeat(140) }), /at most 139/);
    await assert.rejects(sim.simulator.setProfile(friend.number, { picture: Buffer.from('not a jpeg') }), /JPEG/);
    client.end();
  });

  it('blocks and unblocks by LID (the list answers LIDs), a blocked account\'s messages stop both ways; privacy settings read and set', { timeout: 60_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987659411', pushName: 'Loja' });
    const friend = sim.simulator.createAccount({ number: '5511987659412', pushName: 'Bia' });
    const client = new TestClient(sim.url);
    const blocklist: string[] = [];
    const connect = client.connect.bind(client);
    client.connect = (extra) => {
      const sock = connect(extra);
      sock.ev.on('blocklist.update', ({ blocklist: jids, type }) => blocklist.push(...jids.map((j) => `${type} ${j}`)));
      return sock;
    };
    await client.link((qr) => sim.simulator.scanQr(me.number, qr));
    const sock = client.sock!;
    assert.deepEqual(await sock.fetchBlocklist(), []);
    await sock.updateBlockStatus(friend.jid, 'block');
    assert.deepEqual(await sock.fetchBlocklist(), [friend.lid]);
    assert.deepEqual(sim.simulator.blocklist(me.number), [friend.number]);
    const muted = await sim.simulator.sendText(friend.number, me.number, 'você me bloqueou?');
    await sock.updateBlockStatus(friend.jid, 'unblock');
    assert.deepEqual(await sock.fetchBlocklist(), []);
    const heard = await sim.simulator.sendText(friend.number, me.number, 'agora sim');
    await waitFor(() => client.seen.upserts.some((m) => m.key.id === heard.id), 'the message after the unblock');
    assert.equal(client.seen.upserts.some((m) => m.key.id === muted.id), false);

    // The phone blocks the client's account: its message does not reach the phone; the companion is told.
    sim.simulator.setBlocked(friend.number, me.number, true);
    const sent = await sock.sendMessage(friend.jid, { text: 'oi?' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(sim.simulator.received(friend.number).some((m) => m.id === sent!.key.id), false);
    sim.simulator.setBlocked(me.number, friend.number, true);
    await waitFor(() => blocklist.includes(`add ${friend.lid}`), 'the blocklist notification');

    assert.deepEqual(await sock.fetchPrivacySettings(true), sim.simulator.privacy(me.number));
    await sock.updateLastSeenPrivacy('none');
    await sock.updateProfilePicturePrivacy('contacts');
    assert.deepEqual([sim.simulator.privacy(me.number).last, sim.simulator.privacy(me.number).profile], ['none', 'contacts']);
    await assert.rejects(sock.updateOnlinePrivacy('nobody' as never), /bad-request/);
    assert.equal(sim.simulator.privacy(me.number).online, 'all');
    sim.simulator.setPrivacy(me.number, { readreceipts: 'none' });
    assert.equal((await sock.fetchPrivacySettings(true)).readreceipts, 'none');
    assert.throws(() => sim.simulator.setPrivacy(me.number, { readreceipts: 'none', groupadd: 'nobody' }), /groupadd must be one of/);
    assert.equal(sim.simulator.privacy(me.number).groupadd, 'all');
    client.end();
  });
});
