import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';
import { decodePngDataUri, startLocalHttp, type LocalHttp } from './fixtures/local-http.js';

/**
 * Profile, block list and privacy settings through the WhatsApp simulator over real HTTP (spec 4.1 profile,
 * 4.5 privacy, 4.9 block/unblock, blocked list and contact status): Parley's WhatsApp channel changes what the
 * phone network shows of the account, and reads what phones set.
 */
describe('WhatsApp through the simulator: profile, block list and privacy', () => {
  const wa = useSimulatedWhatsApp();
  let images: LocalHttp;
  let png: Buffer = Buffer.alloc(0);
  before(async () => {
    images = await startLocalHttp((req, res) => {
      if (req.url === '/avatar.png') res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      else res.writeHead(404).end();
    });
  });
  after(() => images.close());

  it('changes the account\'s name, about text and picture as phones see them, and reads a phone\'s about text', { timeout: 90_000 }, async () => {
    const { sim } = wa;
    const account = sim.simulator.createAccount({ number: '5511987657201', pushName: 'Loja' });
    const friend = sim.simulator.createAccount({ number: '5511987657202', pushName: 'Cliente' });
    const { api, connecting } = await wa.linkByQr(account.number, 'profile');
    // A real PNG: the QR code the connect answered.
    png = decodePngDataUri(connecting.image);

    await api.call('setProfileName', { body: { name: 'Loja do Centro' } });
    await api.call('setProfileStatus', { body: { text: 'Aberto das 8h às 18h' } });
    assert.deepEqual([sim.simulator.profile(account.number).pushName, sim.simulator.profile(account.number).status], ['Loja do Centro', 'Aberto das 8h às 18h']);
    await api.call('setProfilePicture', { body: { url: `${images.url}/avatar.png` } });
    const picture = sim.simulator.profile(account.number).picture;
    assert.ok(picture, 'the phones see a picture');
    // Baileys sends WhatsApp a 640×640 JPEG made from the PNG.
    assert.deepEqual([...sim.simulator.profilePicture(account.number).subarray(0, 2)], [0xff, 0xd8]);
    await api.call('removeProfilePicture');
    assert.equal(sim.simulator.profile(account.number).picture, null);

    const unset = await api.call('getContactStatus', { params: { number: friend.number } });
    assert.deepEqual(unset.data, { jid: friend.jid, status: null });
    await sim.simulator.setProfile(friend.number, { status: 'Em férias' });
    const status = await api.call('getContactStatus', { params: { number: friend.number } });
    assert.deepEqual([status.data.jid, status.data.status], [friend.jid, 'Em férias']);
    assert.ok(Math.abs(status.data.setAt! - Date.now() / 1000) < 60);
    // Hidden by the phone's privacy: null, as the route documents (WhatsApp answers code 401 and no text).
    sim.simulator.setPrivacy(friend.number, { status: 'none' });
    assert.deepEqual((await api.call('getContactStatus', { params: { number: friend.number } })).data, { jid: friend.jid, status: null });
  });

  it('blocks and unblocks a contact (the blocked list shows its number\'s JID, its messages stop) and reads privacy settings the phone changes', { timeout: 90_000 }, async () => {
    const { sim, t } = wa;
    const account = sim.simulator.createAccount({ number: '5511987657211', pushName: 'Loja' });
    const friend = sim.simulator.createAccount({ number: '5511987657212', pushName: 'Cliente' });
    const { api } = await wa.linkByQr(account.number, 'blocklist');
    const stored = async (id: string) => (await api.call('listChatMessages', { params: { jid: friend.jid } })).data.some((m) => m.key.id === id);

    assert.deepEqual(await api.call('listBlockedContacts'), { status: 200, data: [] });
    assert.deepEqual(await api.call('blockContact', { params: { number: friend.number }, query: { action: 'block' } }), { status: 200, data: { jid: friend.jid, blocked: true } });
    assert.deepEqual(sim.simulator.blocklist(account.number), [friend.number]);
    assert.deepEqual(await api.call('listBlockedContacts'), { status: 200, data: [friend.jid] });
    const muted = await sim.simulator.sendText(friend.number, account.number, 'você me bloqueou?');
    await api.call('blockContact', { params: { number: friend.number }, query: { action: 'unblock' } });
    assert.deepEqual(sim.simulator.blocklist(account.number), []);
    assert.deepEqual(await api.call('listBlockedContacts'), { status: 200, data: [] });
    const heard = await sim.simulator.sendText(friend.number, account.number, 'agora sim');
    await t.waitFor(() => stored(heard.id), 20_000, 'the message after the unblock');
    assert.equal(await stored(muted.id), false);

    const read = async () => (await api.call('getPrivacySettings')).data;
    assert.deepEqual(await read(), sim.simulator.privacy(account.number));
    sim.simulator.setPrivacy(account.number, { last: 'none', readreceipts: 'none', profile: 'contacts' });
    assert.deepEqual(await read(), { ...sim.simulator.privacy(account.number), last: 'none', readreceipts: 'none', profile: 'contacts' });
  });
});
