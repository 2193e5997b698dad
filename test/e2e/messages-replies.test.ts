import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InstanceOperationId, Operations } from '@parley/client';
import { buildVcard } from '@parley/whatsapp-proto';
import { SAMPLES, sha256Base64, sha256Hex } from '../support/media-server.js';
import { apiError } from '../support/api-error.js';
import { documentedClients } from '../support/documented-answers.js';
import { sealed } from '../support/message-secret.js';
import { MessagingPair } from '../support/messaging.js';

type ReplyOperationId = Extract<InstanceOperationId, `reply${string}`>;

/** Spec 4.3: a reply of every type carries the quote in its record and reaches the peer with `context`. */
describe('replies (spec 4.3)', () => {
  let p: MessagingPair;
  let question: any;
  const url = (path: string) => `${p.media.url}${path}`;

  before(async () => {
    p = await MessagingPair.start({}, ['5511900000201', '5511900000202']);
    p.media.serve('/a.png', { body: SAMPLES.png, type: 'image/png' });
    p.media.serve('/a.mp4', { body: SAMPLES.mp4, type: 'video/mp4' });
    p.media.serve('/a.pdf', { body: SAMPLES.pdf, type: 'application/pdf' });
    p.media.serve('/a.mp3', { body: SAMPLES.mp3, type: 'audio/mpeg' });
    question = await p.sendVia('sendText', { to: p.alice.number, text: 'can you help?' }, p.bob);
    await p.received(question.key.id, p.alice);
  });
  after(async () => {
    await p.stop();
  });

  /** Each reply type: its operation and body, the typed member it sends (before the quote is added), and what the peer normalizes. */
  type Case = { type: string; send: (messageId: string) => Promise<any>; member: () => [string, Record<string, unknown>]; content: (id: string) => unknown };
  /** A case whose body is typed by its reply operation. */
  const replyCase = <Id extends ReplyOperationId>(op: Id, c: { type: string; body: () => Operations[Id]['body']; member: Case['member']; content: Case['content'] }): Case => ({
    type: c.type, send: (messageId) => p.sendVia(op, c.body(), p.alice, { messageId }), member: c.member, content: c.content,
  });
  const cases: Case[] = [
    replyCase('replyText', {
      type: 'text', body: () => ({ to: p.bob.number, text: 'sure' }),
      member: () => ['extendedTextMessage', { text: 'sure' }], content: () => ({ type: 'text', body: 'sure' }),
    }),
    replyCase('replyImage', {
      type: 'image', body: () => ({ to: p.bob.number, url: url('/a.png'), caption: 'this one' }),
      member: () => ['imageMessage', { url: url('/a.png'), mimetype: 'image/png', fileSha256: sha256Base64(SAMPLES.png), fileLength: String(SAMPLES.png.length), caption: 'this one' }],
      content: (id) => ({ type: 'image', media: { id, mimeType: 'image/png', sha256: sha256Hex(SAMPLES.png), caption: 'this one' } }),
    }),
    replyCase('replyVideo', {
      type: 'video', body: () => ({ to: p.bob.number, url: url('/a.mp4') }),
      member: () => ['videoMessage', { url: url('/a.mp4'), mimetype: 'video/mp4', fileSha256: sha256Base64(SAMPLES.mp4), fileLength: String(SAMPLES.mp4.length) }],
      content: (id) => ({ type: 'video', media: { id, mimeType: 'video/mp4', sha256: sha256Hex(SAMPLES.mp4) } }),
    }),
    replyCase('replyDocument', {
      type: 'document', body: () => ({ to: p.bob.number, url: url('/a.pdf'), mimetype: 'application/pdf', fileName: 'manual.pdf' }),
      member: () => ['documentMessage', {
        url: url('/a.pdf'), mimetype: 'application/pdf', fileSha256: sha256Base64(SAMPLES.pdf), fileLength: String(SAMPLES.pdf.length), fileName: 'manual.pdf',
      }],
      content: (id) => ({ type: 'document', media: { id, mimeType: 'application/pdf', sha256: sha256Hex(SAMPLES.pdf) }, filename: 'manual.pdf' }),
    }),
    replyCase('replyAudio', {
      type: 'audio', body: () => ({ to: p.bob.number, url: url('/a.mp3') }),
      member: () => ['audioMessage', { url: url('/a.mp3'), mimetype: 'audio/mpeg', fileSha256: sha256Base64(SAMPLES.mp3), fileLength: String(SAMPLES.mp3.length), ptt: false }],
      content: (id) => ({ type: 'audio', media: { id, mimeType: 'audio/mpeg', sha256: sha256Hex(SAMPLES.mp3) }, voice: false }),
    }),
    replyCase('replyButtonReply', {
      type: 'button_reply', body: () => ({ to: p.bob.number, text: 'Which?', buttons: [{ type: 'quick_reply', id: 'a', text: 'A' }] }),
      member: () => ['interactiveMessage', {
        body: { text: 'Which?' }, nativeFlowMessage: { buttons: [{ name: 'quick_reply', buttonParamsJson: '{"display_text":"A","id":"a"}' }], messageVersion: 1 },
      }],
      content: () => ({ type: 'unsupported', typeName: 'interactiveMessage' }),
    }),
    replyCase('replyButtonAction', {
      type: 'button_action', body: () => ({ to: p.bob.number, header: { title: 'Help' }, text: 'Call us', buttons: [{ type: 'cta_call', text: 'Call', phone_number: '5511999990000' }] }),
      member: () => ['interactiveMessage', {
        header: { title: 'Help', hasMediaAttachment: false }, body: { text: 'Call us' },
        nativeFlowMessage: { buttons: [{ name: 'cta_call', buttonParamsJson: '{"display_text":"Call","phone_number":"5511999990000"}' }], messageVersion: 1 },
      }],
      content: () => ({ type: 'unsupported', typeName: 'interactiveMessage' }),
    }),
    replyCase('replyPix', {
      type: 'pix', body: () => ({
        to: p.bob.number, title: 'Fatura', text: 'Pague aqui', referenceId: 'F1', code: 'pixcode', key: 'pay@acme.example', merchantName: 'Acme',
        keyType: 'EMAIL', items: [{ id: 'x', name: 'Serviço', price: 100, quantity: 1 }], subtotal: 100, totalAmount: 95.5,
      }),
      member: () => ['interactiveMessage', {
        header: { title: 'Fatura', hasMediaAttachment: false }, body: { text: 'Pague aqui' },
        nativeFlowMessage: {
          buttons: [{
            name: 'review_and_pay',
            buttonParamsJson: JSON.stringify({
              reference_id: 'F1', type: 'physical-goods', payment_type: 'br',
              payment_settings: [{ type: 'pix_dynamic_code', pix_dynamic_code: { code: 'pixcode', merchant_name: 'Acme', key: 'pay@acme.example', key_type: 'EMAIL' } }],
              currency: 'BRL', total_amount: { value: 9550, offset: 100 },
              order: { status: 'pending', subtotal: { value: 10000, offset: 100 }, items: [{ retailer_id: 'x', name: 'Serviço', amount: { value: 10000, offset: 100 }, quantity: 1 }] },
            }),
          }],
          messageVersion: 1,
        },
      }],
      content: () => ({ type: 'unsupported', typeName: 'interactiveMessage' }),
    }),
    replyCase('replyTitle', {
      type: 'title', body: () => ({ to: p.bob.number, title: 'Note', text: 'See above' }),
      member: () => ['interactiveMessage', { header: { title: 'Note', hasMediaAttachment: false }, body: { text: 'See above' }, nativeFlowMessage: { messageVersion: 1 } }],
      content: () => ({ type: 'unsupported', typeName: 'interactiveMessage' }),
    }),
    replyCase('replyContact', {
      type: 'contact', body: () => ({ to: p.bob.number, contact: { fullName: 'Support', phoneNumber: '5511955554444' } }),
      member: () => ['contactMessage', { displayName: 'Support', vcard: buildVcard({ fullName: 'Support', phoneNumber: '5511955554444' }) }],
      content: () => ({ type: 'contacts', contacts: [{ formattedName: 'Support', vcard: buildVcard({ fullName: 'Support', phoneNumber: '5511955554444' }) }] }),
    }),
    replyCase('replyLocation', {
      type: 'location', body: () => ({ to: p.bob.number, location: { latitude: 1.5, longitude: 2.25, address: 'Here' } }),
      member: () => ['locationMessage', { degreesLatitude: 1.5, degreesLongitude: 2.25, address: 'Here' }],
      content: () => ({ type: 'location', latitude: 1.5, longitude: 2.25, address: 'Here' }),
    }),
  ];

  for (const c of cases) {
    it(`${c.type}: the record quotes the message as contextInfo; the peer gets it with context`, async () => {
      const record = await c.send(question.key.id);
      const [member, fields] = c.member();
      const typed = {
        [member]: { ...fields, contextInfo: { stanzaId: question.key.id, participant: p.bob.jid, quotedMessage: { extendedTextMessage: { text: 'can you help?' } } } },
      };
      // Interactive messages are relayed as built: no messageContextInfo (see sealed).
      p.expectSent(record, member === 'interactiveMessage' ? typed : sealed(typed));
      const stored = await p.t.client(p.alice.key).call('getMessage', { params: { messageId: record.key.id } });
      // Read back: the same record, its status moved on by the peer's delivery receipt.
      assert.deepEqual({ ...stored.data, status: 'PENDING' }, record);
      const got = await p.received(record.key.id);
      p.expectStored(got.record, record);
      assert.deepEqual(got.message.content, c.content(record.key.id));
      assert.deepEqual(got.message.context, { from: p.bob.number, id: question.key.id });
      const echo = p.messagesOf(p.alice).find((m) => m.id === record.key.id);
      assert.deepEqual(echo?.context, { from: p.bob.number, id: question.key.id });
    });
  }

  it('a reply to the instance\'s own message names this phone as the quoted participant', async () => {
    const mine = await p.sendVia('sendText', { to: p.bob.number, text: 'first' });
    const record = await p.sendVia('replyText', { to: p.bob.number, text: 'and second' }, p.alice, { messageId: mine.key.id });
    p.expectSent(record, sealed({
      extendedTextMessage: { text: 'and second', contextInfo: { stanzaId: mine.key.id, participant: p.alice.jid, quotedMessage: { extendedTextMessage: { text: 'first' } } } },
    }));
    assert.deepEqual((await p.received(record.key.id)).message.context, { from: p.alice.number, id: mine.key.id });
  });

  it('404 message_not_found for an unknown message or one of another instance; nothing is sent or fetched', async () => {
    const elsewhere = await p.sendVia('sendText', { to: '5511900000299', text: 'not for alice' }, p.bob);
    const hits = p.media.totalHits();
    const sent = p.messagesOf(p.alice).length;
    // The documented client also checks that the error body's `status` is the HTTP status.
    const api = (await documentedClients(p.t))(p.alice.key);
    for (const messageId of ['3EB0000000000000000000', elsewhere.key.id]) {
      for (const [what, call] of [
        ['replyText', () => api.call('replyText', { params: { messageId }, body: { to: p.bob.number, text: 'x' } })],
        ['replyImage', () => api.call('replyImage', { params: { messageId }, body: { to: p.bob.number, url: url('/a.png') } })],
      ] as const) {
        await assert.rejects(call(), (err: unknown) => {
          apiError(404, 'message_not_found', `message ${messageId} not found`)(err);
          assert.equal((err as { details?: unknown }).details, undefined);
          return true;
        }, what);
      }
    }
    await p.t.settle();
    assert.equal(p.media.totalHits(), hits);
    assert.equal(p.messagesOf(p.alice).length, sent);
  });

  it('a reply validates its body like the send of its type (400 naming the field)', async () => {
    await assert.rejects(p.t.client(p.alice.key).call('replyLocation', { params: { messageId: question.key.id }, body: { to: p.bob.number, location: { latitude: 91, longitude: 0 } } }),
      apiError(400, 'validation_failed', 'body.location.latitude must be <= 90'));
    // Stickers are not among the reply types of spec 4.3: there is no such operation (so no typed call either).
    const unknownType = await p.t.request('POST', `/${p.alice.key}/message/${question.key.id}/sticker`, { to: p.bob.number, url: url('/a.png') });
    assert.equal(unknownType.status, 404);
    assert.equal(unknownType.body.error.code, 'route_not_found');
  });
});
