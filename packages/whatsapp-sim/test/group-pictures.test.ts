import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WAMessageStubType, type Contact } from '@whiskeysockets/baileys';
import type { RunningSimulator } from '../src/index.js';
import { TestClient, waitFor, useSimulator } from './client.js';
import { JPEG } from './jpeg.js';

/** A linked Baileys client that records `contacts.update` (where Baileys reports picture changes). */
async function linked(sim: RunningSimulator, number: string) {
  const client = new TestClient(sim.url);
  const contacts: Partial<Contact>[] = [];
  const connect = client.connect.bind(client);
  client.connect = (extra) => {
    const sock = connect(extra);
    sock.ev.on('contacts.update', (c) => contacts.push(...c));
    return sock;
  };
  await client.link((qr) => sim.simulator.scanQr(number, qr));
  return { client, sock: client.sock!, contacts };
}

describe('group pictures and invite-code verdicts with Baileys', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; }, { media: true });

  it('a member sets, reads and removes the group picture; the other member is told; locked, only admins change it; unknown and revoked invite codes', { timeout: 60_000 }, async () => {
    const alice = sim.simulator.createAccount({ number: '5511987653101', pushName: 'Alice' });
    const carol = sim.simulator.createAccount({ number: '5511987653102', pushName: 'Carol' });
    const a = await linked(sim, alice.number);
    const c = await linked(sim, carol.number);
    const meta = await a.sock.groupCreate('Vitrine', [carol.jid]);
    await assert.rejects(a.sock.profilePictureUrl(meta.id, 'image'), /item-not-found/);

    await a.sock.updateProfilePicture(meta.id, JPEG);
    const picture = sim.simulator.getGroup(meta.id).picture;
    assert.ok(picture, 'the group has a picture');
    const url = await c.sock.profilePictureUrl(meta.id, 'image');
    const served = Buffer.from(await (await fetch(url!)).arrayBuffer());
    assert.deepEqual(served, sim.simulator.groupPicture(meta.id));
    assert.deepEqual([served[0], served[1]], [0xff, 0xd8]);
    // Carol's Baileys: contacts.update for the group, and the icon-change stub naming Alice.
    await waitFor(() => c.contacts.some((u) => u.id === meta.id && u.imgUrl === 'changed'), 'the picture notification at Carol');
    await waitFor(() => c.client.seen.upserts.some((m) => m.key.remoteJid === meta.id && m.messageStubType === WAMessageStubType.GROUP_CHANGE_ICON), 'the icon stub at Carol');
    const stub = c.client.seen.upserts.find((m) => m.messageStubType === WAMessageStubType.GROUP_CHANGE_ICON)!;
    assert.deepEqual([stub.participant, stub.messageStubParameters], [alice.jid, [picture.id]]);

    await a.sock.groupSettingUpdate(meta.id, 'locked');
    await assert.rejects(c.sock.removeProfilePicture(meta.id), /not-authorized/);
    assert.deepEqual(sim.simulator.getGroup(meta.id).picture, picture);
    await a.sock.groupSettingUpdate(meta.id, 'unlocked');
    await c.sock.removeProfilePicture(meta.id);
    assert.equal(sim.simulator.getGroup(meta.id).picture, null);
    await waitFor(() => a.contacts.some((u) => u.id === meta.id && u.imgUrl === 'removed'), 'the removal at Alice');

    // A code never issued is not acceptable (406); a revoked one is gone (410), for info and joining alike.
    const old = await a.sock.groupInviteCode(meta.id);
    await a.sock.groupRevokeInvite(meta.id);
    for (const [code, verdict] of [['AAAAAAAAAAAAAAAAAAAAAA', /not-acceptable/], [old!, /gone/]] as const) {
      await assert.rejects(c.sock.groupGetInviteInfo(code), verdict);
      await assert.rejects(c.sock.groupAcceptInvite(code), verdict);
    }
  });

  it('in a LID-addressed group the picture notification names its author by LID', { timeout: 60_000 }, async () => {
    const alice = sim.simulator.createAccount({ number: '5511987653111', pushName: 'Alice' });
    const carol = sim.simulator.createAccount({ number: '5511987653112', pushName: 'Carol' });
    const a = await linked(sim, alice.number);
    const c = await linked(sim, carol.number);
    const group = sim.simulator.createGroup(alice.number, 'Vitrine', [carol.number], { addressingMode: 'lid' });
    await a.sock.updateProfilePicture(group.jid, JPEG);
    await waitFor(() => c.client.seen.upserts.some((m) => m.key.remoteJid === group.jid && m.messageStubType === WAMessageStubType.GROUP_CHANGE_ICON), 'the icon stub at Carol');
    const stub = c.client.seen.upserts.find((m) => m.key.remoteJid === group.jid && m.messageStubType === WAMessageStubType.GROUP_CHANGE_ICON)!;
    assert.deepEqual([stub.participant, stub.key.participant], [alice.lid, alice.lid]);
  });
});
