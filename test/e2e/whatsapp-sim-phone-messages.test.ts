import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PhoneMessageInput } from '@parley/whatsapp-sim';
import { SAMPLES, sha256Hex } from '../support/media-server.js';
import { metaContacts, metaItem, usePhoneMessages } from '../support/phone-messages.js';
import type { NativeBody } from '../support/simulated-webhooks.js';

/**
 * Spec 6.3's incoming-message events of the main channel that a simulated phone causes, through Baileys'
 * real decode path: video, sticker, location, contacts, reactions and their removal, button replies
 * (buttons and template buttons), list and native-flow button replies, and a voice note. For each, the native webhook
 * carries the normalized content, and the meta format (the same instance's `both` deliveries) the
 * `value.messages[]` item with exactly the members the spec lists; media `url`s serve the phone's bytes.
 */
describe('WhatsApp messages of every kind from a simulated phone, in both webhook formats', () => {
  const s = usePhoneMessages('5511987659301', '5511987659302');

  /** The phone sends `message`; answers its native event and its meta value, checked for the common members. */
  async function deliver(message: PhoneMessageInput, what: string): Promise<{ native: NativeBody; value: any }> {
    const sent = await s.send(message);
    const native = await s.native(sent.id, what);
    assert.deepEqual([native.data.message.from, native.data.message.fromMe, native.data.message.chatType], [s.friend, false, 'individual']);
    const value = await s.meta(sent.id, what);
    assert.equal(value.messaging_product, 'whatsapp');
    assert.equal(value.metadata.display_phone_number, s.shop);
    assert.deepEqual(value.contacts, metaContacts(native));
    assert.equal(value.messages.length, 1);
    return { native, value };
  }

  /** The file behind a media message, through GET /{key}/message/{id}/media. */
  async function file(id: string): Promise<string> {
    return ((await s.api.call('getMessageMedia', { params: { messageId: id }, query: { format: 'json' } })) as { data: string }).data;
  }

  it('message-video, message-sticker (animated and not) and a voice note: media members, and the url serves the exact bytes', { timeout: 90_000 }, async () => {
    const cases = [
      { message: { kind: 'audio' as const, data: SAMPLES.ogg, mimetype: 'audio/ogg; codecs=opus', voice: true }, type: 'audio', extra: { voice: true } },
      { message: { kind: 'video' as const, data: SAMPLES.mp4, mimetype: 'video/mp4', caption: 'o produto' }, type: 'video', extra: { caption: 'o produto' } },
      { message: { kind: 'sticker' as const, data: SAMPLES.webp, mimetype: 'image/webp', animated: true }, type: 'sticker', extra: { animated: true } },
      { message: { kind: 'sticker' as const, data: SAMPLES.webp, mimetype: 'image/webp' }, type: 'sticker', extra: { animated: false } },
    ];
    for (const c of cases) {
      const { native, value } = await deliver(c.message, c.type);
      const content = native.data.message.content;
      const id = native.data.message.id;
      assert.equal(content.type, c.type);
      assert.deepEqual([content.media.id, content.media.mimeType, content.media.sha256], [id, c.message.mimetype, sha256Hex(c.message.data)]);
      if (c.type === 'sticker') assert.equal(content.animated, c.extra.animated);
      else if (c.type === 'audio') assert.equal(content.voice, true);
      else assert.equal(content.media.caption, 'o produto');
      assert.match(content.media.url, new RegExp(`/\\{key\\}/message/${id}/media$`));
      const media = { id, url: content.media.url, mime_type: c.message.mimetype, sha256: sha256Hex(c.message.data), ...c.extra };
      // The meta format's url is the same REST media address.
      assert.deepEqual(value.messages[0], metaItem(native, c.type, { [c.type]: media }));
      assert.equal(await file(id), `data:${c.message.mimetype};base64,${c.message.data.toString('base64')}`);
    }
  });

  it('message-location and message-contacts', { timeout: 90_000 }, async () => {
    const place = await deliver({ kind: 'location', latitude: -23.561414, longitude: -46.655881, name: 'Loja Paulista', address: 'Av. Paulista, 1578' }, 'location');
    assert.deepEqual(place.native.data.message.content, { type: 'location', latitude: -23.561414, longitude: -46.655881, name: 'Loja Paulista', address: 'Av. Paulista, 1578' });
    assert.deepEqual(place.value.messages[0], metaItem(place.native, 'location', {
      location: { latitude: -23.561414, longitude: -46.655881, name: 'Loja Paulista', address: 'Av. Paulista, 1578' },
    }));
    // A pin without a name or address: the members are left out, not null.
    const pin = await deliver({ kind: 'location', latitude: 1.25, longitude: 103.8 }, 'bare location');
    assert.deepEqual(pin.value.messages[0], metaItem(pin.native, 'location', { location: { latitude: 1.25, longitude: 103.8 } }));

    const vcard = 'BEGIN:VCARD\nVERSION:3.0\nFN:Ana Souza\nTEL;type=CELL;waid=5511912340001:+5511912340001\nEND:VCARD';
    const one = await deliver({ kind: 'contacts', contacts: [{ name: 'Ana Souza', number: '5511912340001' }] }, 'one contact');
    assert.deepEqual(one.native.data.message.content, { type: 'contacts', contacts: [{ formattedName: 'Ana Souza', vcard }] });
    assert.deepEqual(one.value.messages[0], metaItem(one.native, 'contacts', { contacts: [{ name: { formatted_name: 'Ana Souza' }, vcard }] }));
    const two = await deliver({ kind: 'contacts', contacts: [{ name: 'Ana Souza', number: '5511912340001' }, { name: 'Bia', vcard: 'BEGIN:VCARD\nFN:Bia\nEND:VCARD' }] }, 'two contacts');
    assert.deepEqual(two.value.messages[0], metaItem(two.native, 'contacts', {
      contacts: [{ name: { formatted_name: 'Ana Souza' }, vcard }, { name: { formatted_name: 'Bia' }, vcard: 'BEGIN:VCARD\nFN:Bia\nEND:VCARD' }],
    }));
  });

  it('message-reaction and message-reaction-removed on a message the instance sent', { timeout: 90_000 }, async () => {
    const offer = (await s.api.call('sendText', { body: { to: s.friend, text: 'Promoção: 20% hoje' } })).data.key.id;
    await s.t.waitFor(() => s.sim.simulator.received(s.friend).find((m) => m.id === offer), 20_000, 'the phone to get the offer');
    const liked = await deliver({ kind: 'reaction', messageId: offer, emoji: '👍' }, 'reaction');
    assert.deepEqual(liked.native.data.message.content, { type: 'reaction', messageId: offer, emoji: '👍' });
    assert.deepEqual(liked.value.messages[0], metaItem(liked.native, 'reaction', { reaction: { message_id: offer, emoji: '👍' } }));
    // docs/rest-api.md: the receiver's record holds the reacted message's key as the receiver sees it.
    const record = await s.t.waitFor(() => s.api.call('getMessage', { params: { messageId: liked.native.data.message.id } }).catch(() => undefined), 20_000, 'the reaction\'s record');
    assert.deepEqual((record.data.message as { reactionMessage: { key: unknown } }).reactionMessage.key, { remoteJid: `${s.friend}@s.whatsapp.net`, fromMe: true, id: offer, participant: '' });
    const removed = await deliver({ kind: 'reaction', messageId: offer, emoji: '' }, 'reaction removed');
    assert.deepEqual(removed.native.data.message.content, { type: 'reaction', messageId: offer });
    assert.deepEqual(removed.value.messages[0], metaItem(removed.native, 'reaction', { reaction: { message_id: offer } }));
  });

  it('message-button (buttons and template buttons), message-interactive-list and message-interactive-button', { timeout: 90_000 }, async () => {
    const question = (await s.api.call('sendText', { body: { to: s.friend, text: 'Confirma o pedido?' } })).data.key.id;
    await s.t.waitFor(() => s.sim.simulator.received(s.friend).find((m) => m.id === question), 20_000, 'the phone to get the question');
    // The reply to buttons names the message whose buttons were pressed: it also carries `context`.
    const yes = await deliver({ kind: 'button', id: 'confirm', text: 'Confirmar', context: { messageId: question } }, 'button reply');
    assert.deepEqual(yes.native.data.message.content, { type: 'button', text: 'Confirmar', payload: 'confirm' });
    assert.deepEqual(yes.value.messages[0], metaItem(yes.native, 'button', { context: { id: question, from: s.shop }, button: { text: 'Confirmar', payload: 'confirm' } }));
    const template = await deliver({ kind: 'button', id: 'stop-promos', text: 'Parar promoções', template: true }, 'template button reply');
    assert.deepEqual(template.value.messages[0], metaItem(template.native, 'button', { button: { text: 'Parar promoções', payload: 'stop-promos' } }));

    const list = await deliver({ kind: 'list', id: 'size-m', title: 'Tamanho M', description: 'Peito 96 cm' }, 'list reply');
    assert.deepEqual(list.native.data.message.content, { type: 'list_reply', id: 'size-m', title: 'Tamanho M', description: 'Peito 96 cm' });
    assert.deepEqual(list.value.messages[0], metaItem(list.native, 'interactive', {
      interactive: { type: 'list_reply', list_reply: { id: 'size-m', title: 'Tamanho M', description: 'Peito 96 cm' } },
    }));
    const bare = await deliver({ kind: 'list', id: 'size-g', title: 'Tamanho G' }, 'list reply without description');
    assert.deepEqual(bare.value.messages[0].interactive, { type: 'list_reply', list_reply: { id: 'size-g', title: 'Tamanho G' } });

    const tap = await deliver({ kind: 'interactive', id: 'pay-pix', title: 'Pagar com Pix' }, 'native-flow button reply');
    assert.deepEqual(tap.native.data.message.content, { type: 'button_reply', id: 'pay-pix', title: 'Pagar com Pix' });
    assert.deepEqual(tap.value.messages[0], metaItem(tap.native, 'interactive', { interactive: { type: 'button_reply', button_reply: { id: 'pay-pix', title: 'Pagar com Pix' } } }));
  });
});
