import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { SAMPLES, sha256Hex } from '../support/media-server.js';
import { delivered, deliveredMeta, nativeWebhooks, useWebhookReceivers, type MetaChange, type NativeBody } from '../support/simulated-webhooks.js';
import { useSimulatedWhatsApp, type SimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

/**
 * Spec 6.3's main-channel events caused by simulated phones, on Baileys' real socket, as Parley's
 * webhooks deliver them to real HTTP receivers in both formats (native, and meta: the spec's event ids
 * `qrcode`, `connection-open`, `message-text`, `message-image`, `message-audio`, `message-document`,
 * `status-sent`/`-delivered`/`-read`, `message-from-me`, `group-participants`, `message-group`,
 * `connection-close`): the QR code and the opened connection, messages of each kind the phone can send
 * (text, image, audio, document, in a group), the instance's own message (sent through the API and from
 * the account's phone), its statuses, group participants, history, contacts, chats (native only: the
 * meta format has none), and the connection closing when the phone removes the device.
 */
describe('WhatsApp events from simulated phones, through native and meta webhooks', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  let api: Awaited<ReturnType<SimulatedWhatsApp['linkByQr']>>['api'];
  const hooks = useWebhookReceivers();
  const shop = '5511987659201';
  const friend = '5511987659202';
  const carol = '5511987659203';
  const dave = '5511987659204';
  const path = 'shop';
  const env = useSimulatedWhatsApp();
  before(() => {
    ({ sim, t } = env);
  });
  before(async () => {
    sim.simulator.createAccount({ number: shop, pushName: 'Loja' });
    for (const [number, pushName] of [[friend, 'Cliente'], [carol, 'Carol'], [dave, 'Dave']] as const) sim.simulator.createAccount({ number, pushName });
    await sim.simulator.seedHistory(shop, { chats: 1, messagesPerChat: 2 });
    ({ api } = await env.linkByQr(shop, 'webhooks', (instance) => nativeWebhooks(instance, hooks.receivers(), path, 'both')));
  });
  const at = (kind: Parameters<typeof delivered>[2], match: (body: NativeBody) => boolean, what: string) => delivered(t, hooks.receivers(), kind, path, match, what);
  const message = (id: string) => (b: NativeBody) => b.type === 'message' && b.data.message.id === id;
  const metaAt = (kind: Parameters<typeof delivered>[2], match: (change: MetaChange) => boolean, what: string) => deliveredMeta(t, hooks.receivers(), kind, path, match, what);
  /** The meta-format message `id` (spec 6.3 `value.messages[]`), with the change's `contacts`. */
  const metaMessage = async (kind: Parameters<typeof delivered>[2], id: string, what: string) => {
    const change = await metaAt(kind, (c) => c.field === 'messages' && (c.value.messages ?? []).some((m: { id: string }) => m.id === id), what);
    return { message: change.value.messages.find((m: { id: string }) => m.id === id), contacts: change.value.contacts, metadata: change.value.metadata };
  };
  /** The meta-format status `status` of message `id` (spec 6.3 `value.statuses[]`). */
  const metaStatus = async (id: string, status: string) => {
    const change = await metaAt('webhookMessage', (c) => c.field === 'messages' && (c.value.statuses ?? []).some((s: { id: string; status: string }) => s.id === id && s.status === status), `meta status-${status}`);
    return change.value.statuses.find((s: { id: string; status: string }) => s.id === id && s.status === status);
  };

  it('qrcode, then connection open, and the history the phone sent on link', { timeout: 60_000 }, async () => {
    const qr = await at('webhookQrCode', (b) => b.type === 'qrcode', 'the qrcode event');
    assert.match(qr.data.qr, /^https:\/\/wa\.me\/settings\/linked_devices#2@/);
    assert.match(qr.data.image, /^data:image\/png;base64,/);
    const open = await at('webhookConnection', (b) => b.type === 'connection' && b.data.status === 'open', 'connection open');
    assert.equal(open.data.code, 200);
    assert.equal(open.data.user.id, `${shop}@s.whatsapp.net`);
    const history = await at('webhookMessage', (b) => b.type === 'history' && b.data.messages.length > 0, 'the history event');
    assert.equal(history.data.messages.length, 2);

    const metaQr = await metaAt('webhookQrCode', (c) => c.field === 'qrcode', 'meta qrcode');
    assert.match(metaQr.value.qrcode.code, /^data:image\/png;base64,/);
    const metaOpen = await metaAt('webhookConnection', (c) => c.field === 'connection' && c.value.connection.status === 'open', 'meta connection-open');
    assert.deepEqual(metaOpen.value.connection, { status: 'open', code: 200 });
    assert.equal(metaOpen.value.metadata.display_phone_number, shop);
  });

  it('message-text; status delivered and read of the instance\'s text; message-from-me from the account\'s phone', { timeout: 60_000 }, async () => {
    const hello = await sim.simulator.sendText(friend, shop, 'Bom dia!');
    const text = await at('webhookMessage', message(hello.id), 'the phone\'s text');
    assert.deepEqual([text.data.message.from, text.data.message.chatType, text.data.message.fromMe, text.data.message.content],
      [friend, 'individual', false, { type: 'text', body: 'Bom dia!' }]);
    assert.equal(text.data.message.pushName, 'Cliente');
    const metaText = await metaMessage('webhookMessage', hello.id, 'meta message-text');
    assert.deepEqual([metaText.message.from, metaText.message.type, metaText.message.text, metaText.message.chat_type, metaText.message.from_me],
      [friend, 'text', { body: 'Bom dia!' }, 'individual', false]);
    assert.deepEqual(metaText.contacts, [{ profile: { name: 'Cliente' }, wa_id: friend }]);

    const sent = await api.call('sendText', { body: { to: friend, text: 'Bom dia! Em que posso ajudar?' } });
    const id = sent.data.key.id;
    // A send through the API is reported by its statuses (sent: the server's ack; delivered, read), not as a message.
    const status = (s: string) => (b: NativeBody) => b.type === 'message.status' && b.data.messageId === id && b.data.status === s;
    assert.equal((await at('webhookMessage', status('sent'), 'status sent')).data.recipientId, friend);
    const got = await at('webhookMessage', status('delivered'), 'status delivered');
    assert.equal(got.data.recipientId, friend);
    await t.waitFor(() => sim.simulator.received(friend).find((m) => m.id === id), 10_000, 'the phone to decrypt it');
    sim.simulator.markRead(friend, id);
    const read = await at('webhookMessage', status('read'), 'status read');
    assert.equal(read.data.recipientId, friend);
    for (const s of ['sent', 'delivered', 'read']) {
      const meta = await metaStatus(id, s);
      assert.deepEqual([meta.recipient_id, meta.conversation, meta.pricing], [friend, null, null], `meta status-${s}`);
      assert.match(meta.timestamp, /^\d+$/);
    }

    // The account's phone writes too: its linked device gets the copy, a from-me message.
    const fromPhone = await sim.simulator.sendText(shop, friend, 'Respondido pelo celular');
    const copy = await at('webhookMessageFromMe', message(fromPhone.id), 'the phone\'s own message');
    assert.deepEqual([copy.data.message.fromMe, copy.data.message.chatJid, copy.data.message.content.body], [true, `${friend}@s.whatsapp.net`, 'Respondido pelo celular']);
    const metaCopy = await metaMessage('webhookMessageFromMe', fromPhone.id, 'meta message-from-me');
    assert.deepEqual([metaCopy.message.from_me, metaCopy.message.type, metaCopy.message.text], [true, 'text', { body: 'Respondido pelo celular' }]);
  });

  it('message-image, message-audio and message-document: media members, and the file behind them', { timeout: 60_000 }, async () => {
    const cases = [
      { kind: 'image' as const, data: SAMPLES.jpeg, mimetype: 'image/jpeg', caption: 'foto' },
      { kind: 'audio' as const, data: SAMPLES.ogg, mimetype: 'audio/ogg; codecs=opus' },
      { kind: 'document' as const, data: SAMPLES.pdf, mimetype: 'application/pdf', fileName: 'pedido.pdf' },
    ];
    for (const c of cases) {
      const sent = await sim.simulator.sendMedia(friend, shop, c);
      const body = await at('webhookMessage', message(sent.id), `the phone's ${c.kind}`);
      const content = body.data.message.content;
      assert.equal(content.type, c.kind);
      assert.deepEqual([content.media.mimeType, content.media.sha256], [c.mimetype, sha256Hex(c.data)]);
      if (c.caption) assert.equal(content.media.caption, c.caption);
      if (c.fileName) assert.equal(content.filename, c.fileName);
      if (c.kind === 'audio') assert.equal(typeof content.voice, 'boolean');
      assert.match(content.media.url, new RegExp(`/\\{key\\}/message/${sent.id}/media$`));
      const meta = (await metaMessage('webhookMessage', sent.id, `meta message-${c.kind}`)).message;
      assert.equal(meta.type, c.kind);
      assert.deepEqual([meta[c.kind].mime_type, meta[c.kind].sha256, meta[c.kind].id], [c.mimetype, sha256Hex(c.data), sent.id]);
      assert.match(meta[c.kind].url, new RegExp(`/message/${sent.id}/media$`));
      if (c.caption) assert.equal(meta[c.kind].caption, c.caption);
      if (c.fileName) assert.equal(meta[c.kind].filename, c.fileName);
      if (c.kind === 'audio') assert.equal(typeof meta.audio.voice, 'boolean');
      const file = await api.call('getMessageMedia', { params: { messageId: sent.id }, query: { format: 'json' } });
      assert.equal((file as { data: string }).data, `data:${c.mimetype};base64,${c.data.toString('base64')}`);
    }
  });

  it('group-participants when a phone adds a member, and message-group with the participant as sender', { timeout: 60_000 }, async () => {
    const group = await sim.simulator.createGroup(friend, 'Atacado', [shop, carol]);
    await sim.simulator.updateGroupMembers(friend, group.jid, 'add', [dave]);
    const added = await at('webhookGroup', (b) => b.type === 'group.participants' && b.data.groupJid === group.jid && b.data.action === 'add', 'group-participants add');
    assert.deepEqual(added.data.participants, [`${dave}@s.whatsapp.net`]);
    const metaAdded = await metaAt('webhookGroup', (c) => c.field === 'groups' && c.value.groups.id === group.jid && c.value.groups.action === 'add', 'meta group-participants');
    assert.deepEqual(metaAdded.value.groups, { event: 'participants_updated', id: group.jid, action: 'add', participants: [`${dave}@s.whatsapp.net`] });
    await sim.simulator.updateGroupMembers(friend, group.jid, 'promote', [carol]);
    const promoted = await at('webhookGroup', (b) => b.type === 'group.participants' && b.data.groupJid === group.jid && b.data.action === 'promote', 'group-participants promote');
    assert.deepEqual(promoted.data.participants, [`${carol}@s.whatsapp.net`]);

    const said = await sim.simulator.sendGroupText(carol, group.jid, 'Quero 10 caixas');
    const body = await at('webhookMessage', message(said.id), 'the group message');
    assert.deepEqual([body.data.message.chatType, body.data.message.groupId, body.data.message.from, body.data.message.content.body],
      ['group', group.jid, carol, 'Quero 10 caixas']);
    const metaGroup = (await metaMessage('webhookMessage', said.id, 'meta message-group')).message;
    assert.deepEqual([metaGroup.chat_type, metaGroup.group_id, metaGroup.from, metaGroup.text], ['group', group.jid, carol, { body: 'Quero 10 caixas' }]);
  });

  it('contacts and chats from the phone\'s app state', { timeout: 60_000 }, async () => {
    const ana = '5511912348001@s.whatsapp.net';
    await sim.simulator.changeAppState(shop, [{ kind: 'contact', jid: ana, fullName: 'Ana Souza' }]);
    const contact = await at('webhookMessage', (b) => b.type === 'contacts.upsert' && JSON.stringify(b.data).includes('Ana Souza'), 'contacts.upsert');
    assert.ok(contact.data.contacts.some((c: { id: string }) => c.id === ana));
    const chat = `${friend}@s.whatsapp.net`;
    await sim.simulator.changeAppState(shop, [{ kind: 'archive', jid: chat, archived: true }]);
    const archived = await at('webhookMessage', (b) => b.type === 'chats.upsert' && b.data.chats.some((c: { id: string; archived?: boolean }) => c.id === chat && c.archived === true), 'chats.upsert archived');
    assert.ok(archived);
  });

  it('connection-close when the phone removes the linked device: logged out, no reconnection', { timeout: 60_000 }, async () => {
    const device = sim.simulator.getAccount(shop).devices[0]!;
    sim.simulator.removeDevice(shop, device.id);
    const closed = await at('webhookConnection', (b) => b.type === 'connection' && b.data.status === 'close', 'connection close');
    assert.deepEqual([closed.data.code, closed.data.loggedOut, closed.data.willReconnect], [401, true, false]);
    assert.equal(typeof closed.data.reason, 'string');
    const metaClosed = await metaAt('webhookConnection', (c) => c.field === 'connection' && c.value.connection.status === 'close', 'meta connection-close');
    assert.deepEqual([metaClosed.value.connection.code, metaClosed.value.connection.reason], [401, closed.data.reason]);
  });
});
