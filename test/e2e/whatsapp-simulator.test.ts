import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SAMPLES } from '../support/media-server.js';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';

/**
 * The WhatsApp channel on Baileys' real socket against the WhatsApp simulator (@parley/whatsapp-sim) on
 * loopback: linking by QR, a sent text the phone decrypts and its receipts, and a text from the phone.
 */
describe('WhatsApp through the simulator, over real HTTP', () => {
  const env = useSimulatedWhatsApp();
  const linkByQr = (number: string, name: string) => env.linkByQr(number, name);

  it('links by QR, sends a text the phone decrypts (delivered, then read), and stores the phone\'s answer', { timeout: 90_000 }, async () => {
    const account = env.sim.simulator.createAccount({ number: '5511987657001', pushName: 'Loja' });
    const friend = env.sim.simulator.createAccount({ number: '5511987657002', pushName: 'Cliente' });
    const { api, open } = await linkByQr(account.number, 'simulated');
    // The account, not this linked device (`…:1@s.whatsapp.net`): issue 25, defect 11.
    assert.equal(open.user?.id, `${account.number}@s.whatsapp.net`);

    const sent = await api.call('sendText', { body: { to: friend.number, text: 'Seu pedido saiu para entrega' } });
    const id = sent.data.key.id;
    const got = await env.t.waitFor(() => env.sim.simulator.received(friend.number).find((m) => m.id === id), 10_000, 'the phone to decrypt it');
    assert.equal(got.fromNumber, account.number);
    assert.equal(got.text, 'Seu pedido saiu para entrega');
    const statuses = () => env.t.events.flatMap((e) => (e.type === 'message.status' && e.messageId === id ? [e.status] : []));
    await env.t.waitFor(() => statuses().includes('delivered'), 10_000, 'the delivery receipt');
    env.sim.simulator.markRead(friend.number, id);
    await env.t.waitFor(() => statuses().includes('read'), 10_000, 'the read receipt');
    // The server's ack is `sent`, before the phone's receipts (Baileys itself surfaces no server ack).
    assert.deepEqual(statuses(), ['sent', 'delivered', 'read']);

    const answer = await env.sim.simulator.sendText(friend.number, account.number, 'Obrigado!');
    const stored = await env.t.waitFor(async () => {
      const page = await api.call('listChatMessages', { params: { jid: friend.jid } });
      return page.data.find((m) => m.key.id === answer.id);
    }, 40_000, 'the phone\'s text in the chat');
    assert.equal(stored.key.fromMe, false);
    assert.equal(JSON.stringify(stored.message).includes('Obrigado!'), true);
  });

  it('creates a group through the API and sends into it: the members\' phones decrypt; a member\'s text is stored', { timeout: 90_000 }, async () => {
    const account = env.sim.simulator.createAccount({ number: '5511987657021', pushName: 'Loja' });
    const bob = env.sim.simulator.createAccount({ number: '5511987657022', pushName: 'Bob' });
    const carol = env.sim.simulator.createAccount({ number: '5511987657023', pushName: 'Carol' });
    const { api } = await linkByQr(account.number, 'groups');
    const created = await api.call('createGroup', { body: { name: 'Clientes VIP', participants: [bob.number, carol.number] } });
    const group = created.data;
    assert.equal(group.subject, 'Clientes VIP');
    assert.deepEqual(env.sim.simulator.getGroup(group.id).members.map((m) => `${m.number} ${m.role}`).sort(),
      [`${account.number} superadmin`, `${bob.number} member`, `${carol.number} member`].sort());
    const sent = await api.call('sendText', { body: { to: group.id, text: 'Promoção só hoje' } });
    for (const member of [bob, carol]) {
      const got = await env.t.waitFor(() => env.sim.simulator.received(member.number).find((m) => m.id === sent.data.key.id), 10_000, 'a member\'s phone to decrypt');
      assert.deepEqual([got.text, got.group, got.fromNumber], ['Promoção só hoje', group.id, account.number]);
    }
    const statuses = () => env.t.events.flatMap((e) => (e.type === 'message.status' && e.messageId === sent.data.key.id ? [e.status] : []));
    await env.t.waitFor(() => statuses().includes('delivered'), 10_000, 'a member\'s delivery receipt');
    const answer = await env.sim.simulator.sendGroupText(bob.number, group.id, 'Quero dois');
    const stored = await env.t.waitFor(async () => {
      const page = await api.call('listChatMessages', { params: { jid: group.id } });
      return page.data.find((m) => m.key.id === answer.id);
    }, 20_000, 'the member\'s text in the group chat');
    assert.equal(stored.key.fromMe, false);
    assert.equal(stored.key.participant, bob.jid);
    assert.equal(JSON.stringify(stored.message).includes('Quero dois'), true);
  });

  it('sends an image the phone decrypts, and serves the image a phone sent through GET media', { timeout: 90_000 }, async () => {
    const account = env.sim.simulator.createAccount({ number: '5511987657031', pushName: 'Loja' });
    const friend = env.sim.simulator.createAccount({ number: '5511987657032', pushName: 'Cliente' });
    const { api } = await linkByQr(account.number, 'media');
    const sent = await api.call('sendBase64Image', { body: { to: friend.number, base64: `data:image/png;base64,${SAMPLES.png.toString('base64')}`, caption: 'catálogo' } });
    const got = await env.t.waitFor(() => env.sim.simulator.received(friend.number).find((m) => m.id === sent.data.key.id), 15_000, 'the phone to get the image');
    assert.deepEqual([got.media?.kind, got.media?.mimetype, got.text], ['image', 'image/png', 'catálogo']);
    assert.deepEqual(env.sim.simulator.receivedMedia(friend.number, got.id).data, SAMPLES.png);

    const pdf = await env.sim.simulator.sendMedia(friend.number, account.number, { kind: 'document', data: SAMPLES.pdf, mimetype: 'application/pdf', fileName: 'comprovante.pdf' });
    const photo = await env.sim.simulator.sendMedia(friend.number, account.number, { kind: 'image', data: SAMPLES.jpeg, mimetype: 'image/jpeg', caption: 'foto do produto' });
    for (const [message, bytes, mime] of [[photo, SAMPLES.jpeg, 'image/jpeg'], [pdf, SAMPLES.pdf, 'application/pdf']] as const) {
      const media = await env.t.waitFor(async () => {
        try {
          return await api.call('getMessageMedia', { params: { messageId: message.id }, query: { format: 'json' } });
        } catch {
          return undefined;
        }
      }, 20_000, 'the phone\'s media to be downloadable');
      assert.deepEqual(media, { status: 200, data: `data:${mime};base64,${bytes.toString('base64')}` });
    }
  });

  it('stores the history the phone sends on link: its chats and their messages, images included', { timeout: 90_000 }, async () => {
    const account = env.sim.simulator.createAccount({ number: '5511987657041', pushName: 'Loja' });
    const seeded = await env.sim.simulator.seedHistory(account.number, { chats: 2, messagesPerChat: 3, mediaEvery: 3 });
    const { api } = await linkByQr(account.number, 'history');
    for (const chat of seeded.chats) {
      const page = await env.t.waitFor(async () => {
        const found = await api.call('listChatMessages', { params: { jid: chat.jid } });
        return found.data.length === chat.messageIds.length ? found : undefined;
      }, 20_000, 'the chat\'s history to be stored');
      assert.deepEqual(page.data.map((m) => m.key.id).sort(), [...chat.messageIds].sort());
      const first = page.data.find((m) => m.key.id === chat.messageIds[0])!;
      assert.equal(JSON.stringify(first.message).includes(`Mensagem 1 de ${chat.name}`), true);
      assert.equal(page.data.find((m) => m.key.id === chat.messageIds[1])!.key.fromMe, true);
      // The third message is an image on the simulator's media host: Parley downloads and decrypts it.
      const media = await api.call('getMessageMedia', { params: { messageId: chat.messageIds[2]! }, query: { format: 'json' } });
      assert.match((media as { data: string }).data, /^data:image\/jpeg;base64,\/9j\/4/);
    }
    const chats = await api.call('listChats');
    for (const chat of seeded.chats) assert.ok(JSON.stringify(chats).includes(chat.jid), `${chat.jid} is listed`);
  });

  it('takes the phone\'s app state on link: contact names as its address book, labels, later changes live, and all of it again on a full resync', { timeout: 90_000 }, async () => {
    const account = env.sim.simulator.createAccount({ number: '5511987657051', pushName: 'Loja' });
    const [ana, bia] = ['5511912347001@s.whatsapp.net', '5511912347002@s.whatsapp.net'];
    await env.sim.simulator.changeAppState(account.number, [
      { kind: 'contact', jid: ana, fullName: 'Ana Souza' },
      { kind: 'label', id: '4', name: 'Pagamento pendente', color: 2 },
    ]);
    const { api } = await linkByQr(account.number, 'app-state');
    const named = (name: string) => async () => {
      const contacts = await api.call('listContacts');
      return JSON.stringify(contacts).includes(name) ? contacts : undefined;
    };
    await env.t.waitFor(named('Ana Souza'), 20_000, 'the contact name from the phone\'s app state');
    const labels = await env.t.waitFor(async () => {
      const found = await api.call('listLabels');
      return JSON.stringify(found).includes('Pagamento pendente') ? found : undefined;
    }, 20_000, 'the label from the phone\'s app state');
    assert.ok(JSON.stringify(labels).includes('"4"'));
    await env.sim.simulator.changeAppState(account.number, [{ kind: 'contact', jid: bia, fullName: 'Bia Lima' }]);
    await env.t.waitFor(named('Bia Lima'), 20_000, 'a contact the phone saved after linking');

    // A full resync (spec 4.1) after the stored contacts were wiped brings the phone's address book back.
    await api.call('clearStorage');
    assert.deepEqual((await api.call('listContacts')).data, []);
    assert.equal((await api.call('resyncInstance')).status, 200);
    await env.t.waitFor(async () => (await named('Ana Souza')()) && (await named('Bia Lima')()), 20_000, 'the address book after a full resync');
  });

  it('restarts as the same device, then logs out (DELETE /{key}/instance): the phone no longer lists the device, one logged-out close, and a connect shows a new QR code', { timeout: 60_000 }, async () => {
    const account = env.sim.simulator.createAccount({ number: '5511987657061' });
    const { api } = await linkByQr(account.number, 'logout');
    const { id } = (await api.call('getInstance')).instance as { id: string };
    const [device] = env.sim.simulator.getAccount(account.number).devices;
    assert.ok(device, 'linked');
    // A restart (POST /{key}/instance/restart) keeps the session: the same device logs in again, no QR code.
    assert.equal((await api.call('restartInstance')).status, 200);
    await env.t.waitFor(async () => (await api.call('getInstance')).instance.phoneConnected && env.sim.simulator.getAccount(account.number).devices[0]?.online, 20_000, 'the restarted connection');
    assert.deepEqual(env.sim.simulator.getAccount(account.number).devices.map((d) => d.id), [device.id], 'the same linked device');
    const closes = () => env.t.events.filter((e) => e.type === 'connection' && e.status === 'close' && (e as { instance?: string }).instance === id);
    const closedBefore = closes().length;
    const logout = await api.call('logoutInstance');
    assert.equal(logout.status, 200);
    await env.t.waitFor(() => env.sim.simulator.getAccount(account.number).devices.length === 0, 10_000, 'the phone to drop the device');
    const close = await env.t.waitFor(() => closes()[closedBefore], 10_000, 'the close event');
    assert.ok(close.type === 'connection' && close.status === 'close');
    assert.deepEqual([close.loggedOut, close.willReconnect], [true, false]);
    assert.equal((await api.call('getInstance')).instance.phoneConnected, false);
    // The session is gone on both sides: connecting again is a new link.
    const again = await api.call('connectInstance');
    assert.match(again.qrcode ?? '', /^https:\/\/wa\.me\/settings\/linked_devices#2@/);
    assert.equal(env.sim.simulator.getAccount(account.number).devices.length, 0);
  });

  // Defect 1 of issue 25: a socket announcing `Chrome (Parley)` (browserName) asks for a code WhatsApp
  // refuses (the simulator's PAIRING_CODE_DISPLAY verdict), so the code could never be entered; the
  // channel asks for codes on a socket named `Chrome (Windows)`, replacing the QR socket.
  it('links by pairing code, asked for while a QR code shows', { timeout: 60_000 }, async () => {
    const account = env.sim.simulator.createAccount({ number: '5511987657011' });
    const instance = await env.t.createInstance({ channel: 'whatsapp', name: 'by-code' });
    const api = env.t.client(instance.key);
    await api.call('connectInstance');
    const { code } = await api.call('requestPairingCode', { body: { phoneNumber: account.number } });
    await env.sim.simulator.enterPairingCode(account.number, code);
    await env.t.waitFor(async () => (await api.call('getInstance')).instance.phoneConnected, 20_000, 'the instance to connect');
  });
});
