import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ParleyApiError } from '@parley/client';
import { SAMPLES, sha256Hex } from '../support/media-server.js';
import { metaContacts, metaItem, metaValues, usePhoneMessages } from '../support/phone-messages.js';
import type { NativeBody } from '../support/simulated-webhooks.js';

/**
 * Spec 6.3's incoming messages that point at other messages or come from elsewhere, caused by a simulated
 * phone on Baileys' real decode path: a reply quoting a message (`context`), a message from an ad
 * (`referral`), an edit (`edit.original_message_id`), a revoke (native `message.delete`, the stored
 * message gone), and kinds other than text in a group (`chat_type` `group`, `group_id`, `from` the member).
 */
describe('WhatsApp replies, ad referrals, edits, revokes and group messages from a simulated phone, in both webhook formats', () => {
  const s = usePhoneMessages('5511987659401', '5511987659402');
  const chat = () => `${s.friend}@s.whatsapp.net`;

  /** The instance sends a text the phone gets; answers its id. */
  async function instanceSays(text: string, to = s.friend): Promise<string> {
    const id = (await s.api.call('sendText', { body: { to, text } })).data.key.id;
    if (!to.endsWith('@g.us')) await s.t.waitFor(() => s.sim.simulator.received(s.friend).find((m) => m.id === id), 20_000, 'the phone to get it');
    return id;
  }

  /** The stored record of a message, or undefined when Parley has none (404 `message_not_found`). */
  async function stored(id: string): Promise<any> {
    try {
      return (await s.api.call('getMessage', { params: { messageId: id } })).data;
    } catch (error) {
      if (error instanceof ParleyApiError && error.status === 404 && error.code === 'message_not_found') return undefined;
      throw error;
    }
  }

  /** Waits until the Unix second changes. */
  const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 50));

  /** Ids of the chat's stored messages, in the order GET /{key}/chat/{jid}/messages lists them. */
  async function chatOrder(): Promise<string[]> {
    return (await s.api.call('listChatMessages', { params: { jid: chat() } })).data.map((m) => m.key.id);
  }

  it('message-reply-context: a reply quoting the instance\'s message, and one quoting the phone\'s own', { timeout: 90_000 }, async () => {
    const offer = await instanceSays('Temos azul e verde');
    const reply = await s.send({ kind: 'reply', text: 'Quero o azul', quoted: { messageId: offer, text: 'Temos azul e verde' } });
    const native = await s.native(reply.id, 'the reply');
    assert.deepEqual(native.data.message.content, { type: 'text', body: 'Quero o azul' });
    assert.deepEqual(native.data.message.context, { id: offer, from: s.shop });
    const value = await s.meta(reply.id, 'the reply');
    assert.deepEqual(value.contacts, metaContacts(native));
    assert.deepEqual(value.messages[0], metaItem(native, 'text', { text: { body: 'Quero o azul' }, context: { from: s.shop, id: offer } }));

    const own = await s.sim.simulator.sendText(s.friend, s.shop, 'E o verde?');
    const again = await s.send({ kind: 'reply', text: 'Esquece o verde', quoted: { messageId: own.id, author: s.friend, text: 'E o verde?' } });
    const quotedOwn = await s.meta(again.id, 'the reply to its own message');
    assert.deepEqual(quotedOwn.messages[0].context, { from: s.friend, id: own.id });
  });

  it('message-referral: a message from a click-to-WhatsApp ad carries every referral member', { timeout: 90_000 }, async () => {
    const ad = {
      sourceUrl: 'https://fb.me/3xAmPlE', sourceId: '120208123456789', sourceType: 'ad', headline: 'Tênis em promoção', body: 'Frete grátis hoje',
      mediaType: 'video' as const, thumbnailUrl: 'https://scontent.example/thumb.jpg', ctwaClid: 'ARAkLkA8rmlFeiCktEJQ',
    };
    const sent = await s.send({ kind: 'referral', text: 'Vi o anúncio, ainda tem?', ad });
    const native = await s.native(sent.id, 'the referral');
    assert.deepEqual(native.data.message.referral, ad);
    const value = await s.meta(sent.id, 'the referral');
    assert.deepEqual(value.messages[0], metaItem(native, 'text', {
      text: { body: 'Vi o anúncio, ainda tem?' },
      referral: {
        source_url: ad.sourceUrl, source_id: ad.sourceId, source_type: 'ad', headline: ad.headline, body: ad.body, media_type: 'video',
        thumbnail_url: ad.thumbnailUrl, ctwa_clid: ad.ctwaClid,
      },
    }));
  });

  it('message-edit (as WhatsApp\'s apps and as Baileys send it): names the original, has no contacts, the stored message shows the new text in its place', { timeout: 90_000 }, async () => {
    for (const bare of [false, true]) {
      const first = await s.sim.simulator.sendText(s.friend, s.shop, 'Quero 2 caixas');
      const sentAt = (await s.native(first.id, 'the original')).data.message.timestamp;
      // A later message, and the edit later still (timestamps are seconds): the edit must not move the original.
      await nextSecond();
      const later = await s.sim.simulator.sendText(s.friend, s.shop, 'Para sexta');
      await s.native(later.id, 'the later message');
      const order = await chatOrder();
      await nextSecond();
      const edit = await s.send({ kind: 'edit', messageId: first.id, text: 'Quero 3 caixas', bare });
      const native = await s.native(edit.id, `the edit (bare: ${bare})`);
      assert.deepEqual(native.data.message.edit, { originalMessageId: first.id });
      assert.deepEqual(native.data.message.content, { type: 'text', body: 'Quero 3 caixas' });
      const value = await s.meta(edit.id, 'the edit');
      assert.equal('contacts' in value, false);
      assert.deepEqual(value.messages[0], metaItem(native, 'edit', { edit: { original_message_id: first.id, message: { type: 'text', text: { body: 'Quero 3 caixas' } } } }));
      const record = await s.t.waitFor(async () => {
        const found = await stored(first.id);
        return found?.message?.conversation === 'Quero 3 caixas' ? found : undefined;
      }, 20_000, 'the stored message to show the edit');
      assert.deepEqual([record.key.id, record.messageTimestamp], [first.id, String(sentAt)]);
      assert.deepEqual(await chatOrder(), order);
      // One event per edit: Baileys' messages.update of the same edit adds none.
      await s.t.settle();
      const edits = s.bodies().filter((b): b is NativeBody => 'type' in b && b.type === 'message' && b.data.message.edit?.originalMessageId === first.id);
      assert.deepEqual(edits.map((b) => b.data.message.id), [edit.id]);
    }
  });

  it('an edited reply keeps its quote (as WhatsApp\'s apps and as Baileys send the edit: the new text only): the edit event\'s context, the stored record\'s contextInfo', { timeout: 90_000 }, async () => {
    for (const bare of [false, true]) {
      const offer = await instanceSays(`Temos P, M e G (${bare})`);
      const reply = await s.send({ kind: 'reply', text: 'Quero M', quoted: { messageId: offer, text: `Temos P, M e G (${bare})` } });
      await s.native(reply.id, 'the reply');
      const edit = await s.send({ kind: 'edit', messageId: reply.id, text: 'Quero G', bare });
      const native = await s.native(edit.id, `the edit of the reply (bare: ${bare})`);
      assert.deepEqual([native.data.message.edit, native.data.message.content], [{ originalMessageId: reply.id }, { type: 'text', body: 'Quero G' }]);
      assert.deepEqual(native.data.message.context, { id: offer, from: s.shop }, 'the edited message still replies to the offer');
      const value = await s.meta(edit.id, 'the edit of the reply');
      assert.deepEqual(value.messages[0], metaItem(native, 'edit', {
        context: { from: s.shop, id: offer }, edit: { original_message_id: reply.id, message: { type: 'text', text: { body: 'Quero G' } } },
      }));
      const record = await s.t.waitFor(async () => {
        const found = await stored(reply.id);
        return found?.message?.extendedTextMessage?.text === 'Quero G' ? found : undefined;
      }, 20_000, 'the stored reply to show the edit');
      const quote = record.message.extendedTextMessage.contextInfo;
      assert.deepEqual([quote?.stanzaId, quote?.participant], [offer, `${s.shop}@s.whatsapp.net`], 'the stored reply still quotes the offer');
      assert.ok(JSON.stringify(quote?.quotedMessage).includes(`Temos P, M e G (${bare})`), 'with the quoted text');
    }
  });

  it('a revoke: native message.delete for the chat, none in the meta format, and the stored message is gone', { timeout: 90_000 }, async () => {
    const oops = await s.sim.simulator.sendText(s.friend, s.shop, 'Mensagem errada');
    await s.native(oops.id, 'the message to revoke');
    await s.t.waitFor(() => stored(oops.id), 20_000, 'the message to be stored');
    const revoke = await s.send({ kind: 'revoke', messageId: oops.id });
    const deleted = await s.t.waitFor(() => s.bodies().find((b): b is NativeBody => 'type' in b && b.type === 'message.delete' && b.data.messageIds.includes(oops.id)), 20_000, 'message.delete');
    assert.deepEqual(deleted.data, { chatJid: chat(), messageIds: [oops.id] });
    await s.t.waitFor(async () => (await stored(oops.id)) === undefined, 20_000, 'the stored message to be deleted');
    await s.t.settle();
    // The revoke itself is no message, and message.delete has no spec 6.3 field: the meta format carries neither.
    assert.equal(s.bodies().some((b) => 'type' in b && b.type === 'message' && b.data.message.id === revoke.id), false);
    assert.deepEqual(metaValues(s.bodies()).filter((v) => JSON.stringify(v).includes(oops.id)).map((v) => v.messages?.[0]?.id), [oops.id]);
  });

  it('the account\'s own phone edits and revokes its message: a from-me edit, and message.delete', { timeout: 90_000 }, async () => {
    const mine = await s.sim.simulator.sendText(s.shop, s.friend, 'Entrega amanhã');
    await s.native(mine.id, 'the phone\'s own message', 'webhookMessageFromMe');
    const edit = await s.send({ kind: 'edit', messageId: mine.id, text: 'Entrega hoje' }, { to: s.friend }, s.shop);
    const native = await s.native(edit.id, 'the own edit', 'webhookMessageFromMe');
    assert.deepEqual([native.data.message.fromMe, native.data.message.chatJid, native.data.message.edit, native.data.message.content],
      [true, chat(), { originalMessageId: mine.id }, { type: 'text', body: 'Entrega hoje' }]);
    const value = await s.meta(edit.id, 'the own edit', 'webhookMessageFromMe');
    assert.deepEqual(value.messages[0], metaItem(native, 'edit', { edit: { original_message_id: mine.id, message: { type: 'text', text: { body: 'Entrega hoje' } } } }));
    await s.send({ kind: 'revoke', messageId: mine.id }, { to: s.friend }, s.shop);
    const deleted = await s.t.waitFor(() => s.bodies().find((b): b is NativeBody => 'type' in b && b.type === 'message.delete' && b.data.messageIds.includes(mine.id)), 20_000, 'message.delete');
    assert.deepEqual(deleted.data, { chatJid: chat(), messageIds: [mine.id] });
    await s.t.waitFor(async () => (await stored(mine.id)) === undefined, 20_000, 'the stored message to be deleted');
  });

  it('message-group with kinds other than text: a location, a video whose url serves its bytes, a reply quoting the instance\'s group message, its edit and revoke', { timeout: 90_000 }, async () => {
    const group = s.sim.simulator.createGroup(s.friend, 'Atacado', [s.shop]);
    const place = await s.send({ kind: 'location', latitude: -22.9, longitude: -43.2, name: 'Depósito' }, { group: group.jid });
    const native = await s.native(place.id, 'the group location');
    assert.deepEqual([native.data.message.chatType, native.data.message.groupId, native.data.message.from], ['group', group.jid, s.friend]);
    const value = await s.meta(place.id, 'the group location');
    assert.deepEqual(value.contacts, metaContacts(native));
    assert.deepEqual(value.messages[0], metaItem(native, 'location', { location: { latitude: -22.9, longitude: -43.2, name: 'Depósito' } }));
    assert.deepEqual([value.messages[0].chat_type, value.messages[0].group_id], ['group', group.jid]);

    const clip = await s.send({ kind: 'video', data: SAMPLES.mp4, mimetype: 'video/mp4' }, { group: group.jid });
    const video = await s.meta(clip.id, 'the group video');
    assert.deepEqual([video.messages[0].type, video.messages[0].group_id, video.messages[0].video.sha256], ['video', group.jid, sha256Hex(SAMPLES.mp4)]);
    const file = await s.api.call('getMessageMedia', { params: { messageId: clip.id }, query: { format: 'json' } });
    assert.equal((file as { data: string }).data, `data:video/mp4;base64,${SAMPLES.mp4.toString('base64')}`);

    const asked = await instanceSays('Qual o endereço de entrega?', group.jid);
    const reply = await s.send({ kind: 'reply', text: 'Rua A, 10', quoted: { messageId: asked, author: s.shop } }, { group: group.jid });
    const replied = await s.meta(reply.id, 'the group reply');
    assert.deepEqual(replied.messages[0].context, { from: s.shop, id: asked });
    assert.deepEqual([replied.messages[0].chat_type, replied.messages[0].group_id, replied.messages[0].from], ['group', group.jid, s.friend]);

    // The member edits, then revokes, the reply: an edit in the group, then message.delete for the group chat.
    const edit = await s.send({ kind: 'edit', messageId: reply.id, text: 'Rua B, 20' }, { group: group.jid });
    const edited = await s.meta(edit.id, 'the group edit');
    // The edited reply still quotes the instance's question.
    assert.deepEqual(edited.messages[0], metaItem(await s.native(edit.id, 'the group edit'), 'edit', {
      context: { from: s.shop, id: asked }, edit: { original_message_id: reply.id, message: { type: 'text', text: { body: 'Rua B, 20' } } },
    }));
    assert.deepEqual([edited.messages[0].chat_type, edited.messages[0].group_id, edited.messages[0].from], ['group', group.jid, s.friend]);
    await s.send({ kind: 'revoke', messageId: reply.id }, { group: group.jid });
    const deleted = await s.t.waitFor(() => s.bodies().find((b): b is NativeBody => 'type' in b && b.type === 'message.delete' && b.data.messageIds.includes(reply.id)), 20_000, 'message.delete');
    assert.deepEqual(deleted.data, { chatJid: group.jid, messageIds: [reply.id] });
    await s.t.waitFor(async () => (await stored(reply.id)) === undefined, 20_000, 'the stored group message to be deleted');
  });
});
