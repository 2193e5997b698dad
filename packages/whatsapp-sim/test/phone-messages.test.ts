import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { downloadMediaMessage, normalizeMessageContent, proto, type WAMessage } from '@whiskeysockets/baileys';
import type { PhoneMessageInput, RunningSimulator } from '../src/index.js';
import { refusal, TestClient, waitFor, useSimulator } from './client.js';

/**
 * A phone sends every kind of message (`sendMessage`, and over HTTP `POST /accounts/{number}/messages/{kind}`)
 * to an account linked to the unmodified Baileys client, 1:1 and in a group: Baileys decrypts each and finds
 * the content the phone meant, its media downloadable from the media host.
 */
describe('a phone sends messages of every kind', () => {
  let sim: RunningSimulator;
  useSimulator((started) => { sim = started; }, { media: true });
  const call = async (path: string, body: unknown) => {
    const res = await fetch(`${sim.controlUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, body: await res.json() as any };
  };
  const upsert = async (client: TestClient, id: string): Promise<WAMessage> => {
    await waitFor(() => client.seen.upserts.some((m) => m.key.id === id && m.message), `Baileys to decrypt ${id}`);
    return client.seen.upserts.find((m) => m.key.id === id)!;
  };

  it('1:1: Baileys decrypts each kind as the phone sent it; the video and sticker download', { timeout: 90_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987656101' });
    const friend = sim.simulator.createAccount({ number: '5511987656102', pushName: 'Amiga' });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(me.number, qr));
    const send = (message: PhoneMessageInput) => sim.simulator.sendMessage(friend.number, { to: me.number }, message);
    const video = randomBytes(4000);
    const sticker = randomBytes(1500);
    const clip = await send({ kind: 'video', data: video, mimetype: 'video/mp4', caption: 'olha o vídeo' });
    const got = await upsert(client, clip.id);
    assert.equal(got.message?.videoMessage?.caption, 'olha o vídeo');
    assert.deepEqual(await downloadMediaMessage(got, 'buffer', {}), video);
    const animated = await upsert(client, (await send({ kind: 'sticker', data: sticker, mimetype: 'image/webp', animated: true })).id);
    assert.equal(animated.message?.stickerMessage?.isAnimated, true);
    assert.deepEqual(await downloadMediaMessage(animated, 'buffer', {}), sticker);

    const location = (await upsert(client, (await send({ kind: 'location', latitude: -23.55, longitude: -46.63, name: 'Loja', address: 'Av. Paulista, 1000' })).id)).message!.locationMessage!;
    assert.deepEqual([location.degreesLatitude, location.degreesLongitude, location.name, location.address], [-23.55, -46.63, 'Loja', 'Av. Paulista, 1000']);
    const one = (await upsert(client, (await send({ kind: 'contacts', contacts: [{ name: 'Ana', number: '5511912340001' }] })).id)).message!.contactMessage!;
    assert.equal(one.displayName, 'Ana');
    assert.match(one.vcard!, /FN:Ana\nTEL;type=CELL;waid=5511912340001:\+5511912340001/);
    const two = (await upsert(client, (await send({ kind: 'contacts', contacts: [{ name: 'Ana' }, { name: 'Bia', vcard: 'BEGIN:VCARD\nFN:Bia\nEND:VCARD' }] })).id)).message!.contactsArrayMessage!;
    assert.deepEqual(two.contacts!.map((c) => [c.displayName, c.vcard]), [['Ana', 'BEGIN:VCARD\nVERSION:3.0\nFN:Ana\nEND:VCARD'], ['Bia', 'BEGIN:VCARD\nFN:Bia\nEND:VCARD']]);

    const mine = await client.sock!.sendMessage(friend.jid, { text: 'Oferta de hoje' });
    const reaction = (await upsert(client, (await send({ kind: 'reaction', messageId: mine!.key.id!, emoji: '👍' })).id)).message!.reactionMessage!;
    // The phone names the message as not its own; Baileys' cleanMessage turns the key to the receiver's view.
    assert.deepEqual([reaction.key?.id, reaction.key?.fromMe, reaction.text], [mine!.key.id, true, '👍']);
    const removed = (await upsert(client, (await send({ kind: 'reaction', messageId: mine!.key.id!, emoji: '' })).id)).message!.reactionMessage!;
    assert.equal(removed.text, '');

    const context = { messageId: mine!.key.id! };
    const button = (await upsert(client, (await send({ kind: 'button', id: 'yes', text: 'Sim', context })).id)).message!.buttonsResponseMessage!;
    assert.deepEqual([button.selectedButtonId, button.selectedDisplayText, button.contextInfo?.stanzaId, button.contextInfo?.participant], ['yes', 'Sim', mine!.key.id, me.jid]);
    const template = (await upsert(client, (await send({ kind: 'button', id: 'no', text: 'Não', template: true })).id)).message!.templateButtonReplyMessage!;
    assert.deepEqual([template.selectedId, template.selectedDisplayText], ['no', 'Não']);
    const list = (await upsert(client, (await send({ kind: 'list', id: 'row-2', title: 'Azul', description: 'tamanho M' })).id)).message!.listResponseMessage!;
    assert.deepEqual([list.singleSelectReply?.selectedRowId, list.title, list.description, list.listType], ['row-2', 'Azul', 'tamanho M', proto.Message.ListResponseMessage.ListType.SINGLE_SELECT]);
    const flow = (await upsert(client, (await send({ kind: 'interactive', id: 'buy', title: 'Comprar' })).id)).message!.interactiveResponseMessage!;
    assert.deepEqual([flow.body?.text, JSON.parse(flow.nativeFlowResponseMessage!.paramsJson!).id], ['Comprar', 'buy']);

    const reply = (await upsert(client, (await send({ kind: 'reply', text: 'Quero', quoted: { messageId: mine!.key.id!, text: 'Oferta de hoje' } })).id)).message!.extendedTextMessage!;
    assert.deepEqual([reply.text, reply.contextInfo?.stanzaId, reply.contextInfo?.participant, reply.contextInfo?.quotedMessage?.conversation], ['Quero', mine!.key.id, me.jid, 'Oferta de hoje']);
    const ad = { sourceId: '120210', sourceType: 'ad', sourceUrl: 'https://fb.me/ad', headline: 'Promo', body: 'Só hoje', mediaType: 'image' as const, thumbnailUrl: 'https://x.test/t.jpg', ctwaClid: 'clid-1' };
    const referral = (await upsert(client, (await send({ kind: 'referral', text: 'Vi o anúncio', ad })).id)).message!.extendedTextMessage!.contextInfo!.externalAdReply!;
    assert.deepEqual([referral.sourceId, referral.title, referral.body, referral.ctwaClid, referral.mediaType], ['120210', 'Promo', 'Só hoje', 'clid-1', proto.ContextInfo.ExternalAdReplyInfo.MediaType.IMAGE]);

    const first = await sim.simulator.sendText(friend.number, me.number, 'Quero 2');
    const edit = (await upsert(client, (await send({ kind: 'edit', messageId: first.id, text: 'Quero 3' })).id)).message!.editedMessage!.message!.protocolMessage!;
    assert.deepEqual([edit.type, edit.key?.id, edit.editedMessage?.conversation], [proto.Message.ProtocolMessage.Type.MESSAGE_EDIT, first.id, 'Quero 3']);
    const bare = (await upsert(client, (await send({ kind: 'edit', messageId: first.id, text: 'Quero 4', bare: true })).id)).message!;
    assert.deepEqual([bare.editedMessage ?? undefined, normalizeMessageContent(bare)?.protocolMessage?.editedMessage?.conversation], [undefined, 'Quero 4']);
    const revoke = (await upsert(client, (await send({ kind: 'revoke', messageId: first.id })).id)).message!.protocolMessage!;
    assert.deepEqual([revoke.type, revoke.key?.id, revoke.key?.fromMe], [proto.Message.ProtocolMessage.Type.REVOKE, first.id, true]);
    client.end();
  });

  it('in a group, a reaction names the author; over HTTP each kind is sent, and bad input is a 400 that sends nothing', { timeout: 90_000 }, async () => {
    const me = sim.simulator.createAccount({ number: '5511987656201' });
    const friend = sim.simulator.createAccount({ number: '5511987656202' });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(me.number, qr));
    const group = sim.simulator.createGroup(friend.number, 'Pedidos', [me.number]);
    const said = await client.sock!.sendMessage(group.jid, { text: 'Bom dia' });
    const reacted = await sim.simulator.sendMessage(friend.number, { group: group.jid }, { kind: 'reaction', messageId: said!.key.id!, emoji: '❤️', author: me.number });
    const reaction = await upsert(client, reacted.id);
    assert.deepEqual([reaction.key.remoteJid, reaction.message?.reactionMessage?.key?.participant, reaction.message?.reactionMessage?.text], [group.jid, me.jid, '❤️']);
    const place = await call(`/accounts/${friend.number}/messages/location`, { group: group.jid, latitude: 1.5, longitude: 2.5, name: 'Aqui' });
    assert.equal(place.status, 201, JSON.stringify(place.body));
    assert.equal((await upsert(client, place.body.id)).message?.locationMessage?.name, 'Aqui');
    const clip = await call(`/accounts/${friend.number}/messages/video`, { to: me.number, data: Buffer.from('mp4 bytes').toString('base64'), mimetype: 'video/mp4' });
    assert.equal(clip.status, 201, JSON.stringify(clip.body));
    assert.deepEqual(await downloadMediaMessage(await upsert(client, clip.body.id), 'buffer', {}), Buffer.from('mp4 bytes'));

    const sentBefore = sim.simulator.sent(friend.number).length;
    const path = `/accounts/${friend.number}/messages`;
    const cases: Array<[string, unknown, number, string]> = [
      [`${path}/location`, { latitude: 1, longitude: 2 }, 400, 'validation_failed:invalid_message body.to'],
      [`${path}/location`, { to: me.number, group: group.jid, latitude: 1, longitude: 2 }, 400, 'validation_failed:invalid_message body.to'],
      [`${path}/location`, { to: me.number, latitude: 91, longitude: 2 }, 400, 'validation_failed:invalid_message body.latitude'],
      [`${path}/location`, { to: me.number, latitude: '1', longitude: 2 }, 400, 'validation_failed:invalid_message body.latitude'],
      [`${path}/contacts`, { to: me.number, contacts: [] }, 400, 'validation_failed:invalid_message body.contacts'],
      [`${path}/contacts`, { to: me.number, contacts: [{ name: 'A', number: 'abc' }] }, 400, 'validation_failed:invalid_message body.contacts[0].number'],
      [`${path}/reaction`, { to: me.number, messageId: 'X', emoji: 5 }, 400, 'validation_failed:invalid_message body.emoji'],
      [`${path}/reaction`, { group: group.jid, messageId: 'X', emoji: '👍' }, 400, 'validation_failed:invalid_message body.author'],
      [`${path}/button`, { to: me.number, id: 'a' }, 400, 'validation_failed:invalid_message body.text'],
      [`${path}/button`, { to: me.number, id: 'a', text: 'A', context: 'X' }, 400, 'validation_failed body.context'],
      [`${path}/list`, { to: me.number, title: 'A' }, 400, 'validation_failed:invalid_message body.id'],
      [`${path}/interactive`, { to: me.number, id: '', title: 'A' }, 400, 'validation_failed:invalid_message body.id'],
      [`${path}/reply`, { to: me.number, text: 'A' }, 400, 'validation_failed:invalid_message body.quoted.messageId'],
      [`${path}/referral`, { to: me.number, text: 'A', ad: { headline: 'x' } }, 400, 'validation_failed:invalid_message body.ad.sourceId'],
      [`${path}/referral`, { to: me.number, text: 'A', ad: { sourceId: '1', mediaType: 'gif' } }, 400, 'validation_failed:invalid_message body.ad.mediaType'],
      [`${path}/edit`, { to: me.number, messageId: 'NOPE', text: 'x' }, 404, 'message_not_found'],
      [`${path}/revoke`, { to: me.number }, 400, 'validation_failed:invalid_message body.messageId'],
      [`${path}/video`, { to: me.number, data: '%%', mimetype: 'video/mp4' }, 400, 'validation_failed body.data'],
      [`${path}/video`, { to: me.number, data: 'AAAA', mimetype: 'mp4' }, 400, 'validation_failed:invalid_media body.mimetype'],
      [`${path}/sticker`, { to: me.number, data: '', mimetype: 'image/webp' }, 400, 'validation_failed:invalid_media body.data'],
      [`${path}/sticker`, { to: me.number, data: 'AAAA', mimetype: 'image/webp', animated: 'yes' }, 400, 'validation_failed body.animated'],
      [`${path}/poll`, { to: me.number }, 404, 'unknown_kind'],
      [`${path}/vote`, { to: me.number, messageId: 'NOPE', options: ['Sim'] }, 404, 'message_not_found'],
      [`${path}/vote`, { to: me.number, messageId: '' }, 400, 'validation_failed:invalid_message body.messageId'],
      [`${path}/rsvp`, { to: me.number, messageId: 'NOPE', response: 'going' }, 404, 'message_not_found'],
      [`${path}/location`, { to: '5599999999999', latitude: 1, longitude: 2 }, 404, 'account_not_found'],
      [`${path}/location`, { group: '1@g.us', latitude: 1, longitude: 2 }, 404, 'group_not_found'],
    ];
    for (const [route, body, status, code] of cases) {
      const res = await call(route, body);
      assert.equal(res.status, status, `${route} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      assert.equal(refusal(res), code, `${route} ${JSON.stringify(body)}`);
    }
    assert.equal(sim.simulator.sent(friend.number).length, sentBefore);
    client.end();
  });
});
