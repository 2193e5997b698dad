import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildVcard } from '@parley/whatsapp-proto';
import { dataUri, SAMPLES, sha256Base64, sha256Hex } from '../support/media-server.js';
import { sealed } from '../support/message-secret.js';
import { MessagingPair } from '../support/messaging.js';

/** Spec 4.2: every send operation, the exact record answered and what the peer phone received. */
describe('sending every message type (spec 4.2)', () => {
  let p: MessagingPair;
  const media = (path: string) => `${p.media.url}${path}`;

  before(async () => {
    p = await MessagingPair.start();
    p.media.serve('/photo.png', { body: SAMPLES.png, type: 'image/png' });
    p.media.serve('/voice.ogg', { body: SAMPLES.ogg, type: 'audio/ogg; codecs=opus' });
    p.media.serve('/song.mp3', { body: SAMPLES.mp3, type: 'audio/mpeg' });
    p.media.serve('/clip.mp4', { body: SAMPLES.mp4, type: 'video/mp4' });
    p.media.serve('/files/q3.bin', { body: SAMPLES.pdf, type: 'application/octet-stream' });
    p.media.serve('/party.webp', { body: SAMPLES.animatedWebp, type: 'image/webp' });
    p.media.serve('/still.webp', { body: SAMPLES.webp, type: 'image/webp' });
    p.media.serve('/thumb.jpg', { body: SAMPLES.jpeg, type: 'image/jpeg' });
  });
  after(async () => {
    await p.stop();
  });

  const to = () => p.bob.number;

  it('text: extendedTextMessage; the peer gets a text', async () => {
    const record = await p.sendVia('sendText', { to: to(), text: 'hello bob' });
    p.expectSent(record, sealed({ extendedTextMessage: { text: 'hello bob' } }));
    const got = await p.received(record.key.id);
    p.expectStored(got.record, record);
    assert.deepEqual(got.message.content, { type: 'text', body: 'hello bob' });
    assert.equal(got.message.context, undefined);
  });

  it('image by URL: imageMessage with url, mimetype, caption, digest and length (64-bit, as text)', async () => {
    const record = await p.sendVia('sendImage', { to: to(), url: media('/photo.png'), caption: 'our shop' });
    p.expectSent(record, sealed({
      imageMessage: { url: media('/photo.png'), mimetype: 'image/png', fileSha256: sha256Base64(SAMPLES.png), fileLength: String(SAMPLES.png.length), caption: 'our shop' },
    }));
    const got = await p.received(record.key.id);
    p.expectStored(got.record, record);
    assert.deepEqual(got.message.content, {
      type: 'image', media: { id: record.key.id, mimeType: 'image/png', sha256: sha256Hex(SAMPLES.png), caption: 'our shop' },
    });
  });

  it('image without caption (an empty caption is none)', async () => {
    const record = await p.sendVia('sendImage', { to: to(), url: media('/photo.png'), caption: '' });
    p.expectSent(record, sealed({ imageMessage: { url: media('/photo.png'), mimetype: 'image/png', fileSha256: sha256Base64(SAMPLES.png), fileLength: String(SAMPLES.png.length) } }));
  });

  it('audio by URL: Ogg goes as a voice note (ptt), MP3 as an audio file', async () => {
    const voice = await p.sendVia('sendAudio', { to: to(), url: media('/voice.ogg') });
    p.expectSent(voice, sealed({
      audioMessage: { url: media('/voice.ogg'), mimetype: 'audio/ogg', fileSha256: sha256Base64(SAMPLES.ogg), fileLength: String(SAMPLES.ogg.length), ptt: true },
    }));
    const gotVoice = await p.received(voice.key.id);
    p.expectStored(gotVoice.record, voice);
    assert.deepEqual(gotVoice.message.content, { type: 'audio', media: { id: voice.key.id, mimeType: 'audio/ogg', sha256: sha256Hex(SAMPLES.ogg) }, voice: true });

    const song = await p.sendVia('sendAudio', { to: to(), url: media('/song.mp3') });
    p.expectSent(song, sealed({
      audioMessage: { url: media('/song.mp3'), mimetype: 'audio/mpeg', fileSha256: sha256Base64(SAMPLES.mp3), fileLength: String(SAMPLES.mp3.length), ptt: false },
    }));
    const gotSong = await p.received(song.key.id);
    assert.deepEqual(gotSong.message.content, { type: 'audio', media: { id: song.key.id, mimeType: 'audio/mpeg', sha256: sha256Hex(SAMPLES.mp3) }, voice: false });
  });

  it('video by URL with a caption', async () => {
    const record = await p.sendVia('sendVideo', { to: to(), url: media('/clip.mp4'), caption: 'the launch' });
    p.expectSent(record, sealed({
      videoMessage: { url: media('/clip.mp4'), mimetype: 'video/mp4', fileSha256: sha256Base64(SAMPLES.mp4), fileLength: String(SAMPLES.mp4.length), caption: 'the launch' },
    }));
    const got = await p.received(record.key.id);
    p.expectStored(got.record, record);
    assert.deepEqual(got.message.content, {
      type: 'video', media: { id: record.key.id, mimeType: 'video/mp4', sha256: sha256Hex(SAMPLES.mp4), caption: 'the launch' },
    });
  });

  it('document by URL: the given mimetype and fileName win over what the server answered', async () => {
    const record = await p.sendVia('sendDocument', { to: to(), url: media('/files/q3.bin'), mimetype: 'application/pdf', fileName: 'Q3 report.pdf' });
    p.expectSent(record, sealed({
      documentMessage: {
        url: media('/files/q3.bin'), mimetype: 'application/pdf', fileSha256: sha256Base64(SAMPLES.pdf), fileLength: String(SAMPLES.pdf.length), fileName: 'Q3 report.pdf',
      },
    }));
    const got = await p.received(record.key.id);
    p.expectStored(got.record, record);
    assert.deepEqual(got.message.content, {
      type: 'document', media: { id: record.key.id, mimeType: 'application/pdf', sha256: sha256Hex(SAMPLES.pdf) }, filename: 'Q3 report.pdf',
    });
  });

  it('sticker: an animated WebP is isAnimated, a still one is not', async () => {
    const animated = await p.sendVia('sendSticker', { to: to(), url: media('/party.webp') });
    p.expectSent(animated, sealed({
      stickerMessage: {
        url: media('/party.webp'), mimetype: 'image/webp', fileSha256: sha256Base64(SAMPLES.animatedWebp), fileLength: String(SAMPLES.animatedWebp.length), isAnimated: true,
      },
    }));
    const got = await p.received(animated.key.id);
    p.expectStored(got.record, animated);
    assert.deepEqual(got.message.content, {
      type: 'sticker', media: { id: animated.key.id, mimeType: 'image/webp', sha256: sha256Hex(SAMPLES.animatedWebp) }, animated: true,
    });
    const still = await p.sendVia('sendSticker', { to: to(), url: media('/still.webp') });
    assert.equal(still.message.stickerMessage.isAnimated, false);
    assert.equal((await p.received(still.key.id)).message.content.type, 'sticker');
  });

  it('video-note: ptvMessage; the peer gets a video', async () => {
    const record = await p.sendVia('sendVideoNote', { to: to(), url: media('/clip.mp4') });
    p.expectSent(record, sealed({ ptvMessage: { url: media('/clip.mp4'), mimetype: 'video/mp4', fileSha256: sha256Base64(SAMPLES.mp4), fileLength: String(SAMPLES.mp4.length) } }));
    const got = await p.received(record.key.id);
    p.expectStored(got.record, record);
    assert.deepEqual(got.message.content, { type: 'video', media: { id: record.key.id, mimeType: 'video/mp4', sha256: sha256Hex(SAMPLES.mp4) } });
  });

  it('base64/image: imageMessage without url', async () => {
    const record = await p.sendVia('sendBase64Image', { to: to(), base64: dataUri('image/png', SAMPLES.png), caption: 'inline' });
    p.expectSent(record, sealed({ imageMessage: { mimetype: 'image/png', fileSha256: sha256Base64(SAMPLES.png), fileLength: String(SAMPLES.png.length), caption: 'inline' } }));
    const got = await p.received(record.key.id);
    p.expectStored(got.record, record);
    assert.deepEqual(got.message.content, {
      type: 'image', media: { id: record.key.id, mimeType: 'image/png', sha256: sha256Hex(SAMPLES.png), caption: 'inline' },
    });
  });

  it('base64/audio: an Ogg data URI is a voice note', async () => {
    const record = await p.sendVia('sendBase64Audio', { to: to(), base64: dataUri('audio/ogg', SAMPLES.ogg) });
    p.expectSent(record, sealed({ audioMessage: { mimetype: 'audio/ogg', fileSha256: sha256Base64(SAMPLES.ogg), fileLength: String(SAMPLES.ogg.length), ptt: true } }));
    const got = await p.received(record.key.id);
    assert.deepEqual(got.message.content, { type: 'audio', media: { id: record.key.id, mimeType: 'audio/ogg', sha256: sha256Hex(SAMPLES.ogg) }, voice: true });
  });

  it('base64/document: documentMessage with the given name and type', async () => {
    const record = await p.sendVia('sendBase64Document', { to: to(), base64: dataUri('application/octet-stream', SAMPLES.pdf), mimetype: 'application/pdf', fileName: 'invoice.pdf' });
    p.expectSent(record, sealed({
      documentMessage: { mimetype: 'application/pdf', fileSha256: sha256Base64(SAMPLES.pdf), fileLength: String(SAMPLES.pdf.length), fileName: 'invoice.pdf' },
    }));
    const got = await p.received(record.key.id);
    assert.deepEqual(got.message.content, {
      type: 'document', media: { id: record.key.id, mimeType: 'application/pdf', sha256: sha256Hex(SAMPLES.pdf) }, filename: 'invoice.pdf',
    });
  });

  it('document and base64/document with a caption (an extension): the peer gets the caption with the document', async () => {
    const linked = await p.sendVia('sendDocument', { to: to(), url: media('/files/q3.bin'), mimetype: 'application/pdf', fileName: 'terms.pdf', caption: 'the signed terms' });
    const inline = await p.sendVia('sendBase64Document', { to: to(), base64: dataUri('application/pdf', SAMPLES.pdf), mimetype: 'application/pdf', fileName: 'invoice.pdf', caption: 'your invoice' });
    for (const [record, caption, filename] of [[linked, 'the signed terms', 'terms.pdf'], [inline, 'your invoice', 'invoice.pdf']] as const) {
      assert.ok(JSON.stringify(record.message).includes(`"caption":"${caption}"`), JSON.stringify(record.message));
      const got = await p.received(record.key.id);
      assert.equal(got.message.content.type, 'document');
      assert.deepEqual([(got.message.content as any).media.caption, (got.message.content as any).filename], [caption, filename]);
    }
  });

  it('contact: contactMessage with a vCard carrying the waid', async () => {
    const card = { fullName: 'Ana Souza', phoneNumber: '+55 11 98888-7777', organization: 'Acme; Ltd' };
    const record = await p.sendVia('sendContact', { to: to(), contact: card });
    const vcard = 'BEGIN:VCARD\nVERSION:3.0\nFN:Ana Souza\nORG:Acme\\; Ltd;\nTEL;type=CELL;type=VOICE;waid=5511988887777:+5511988887777\nEND:VCARD';
    assert.equal(buildVcard(card), vcard);
    p.expectSent(record, sealed({ contactMessage: { displayName: 'Ana Souza', vcard } }));
    const got = await p.received(record.key.id);
    p.expectStored(got.record, record);
    assert.deepEqual(got.message.content, { type: 'contacts', contacts: [{ formattedName: 'Ana Souza', vcard }] });
  });

  it('contacts: contactsArrayMessage', async () => {
    const cards = [{ fullName: 'Ana', phoneNumber: '5511988887777' }, { fullName: 'Rui', phoneNumber: '351912345678' }];
    const record = await p.sendVia('sendContacts', { to: to(), displayName: 'Team', contacts: cards });
    const vcards = cards.map((c) => buildVcard(c));
    p.expectSent(record, sealed({ contactsArrayMessage: { displayName: 'Team', contacts: [{ displayName: 'Ana', vcard: vcards[0] }, { displayName: 'Rui', vcard: vcards[1] }] } }));
    const got = await p.received(record.key.id);
    assert.deepEqual(got.message.content, { type: 'contacts', contacts: [{ formattedName: 'Ana', vcard: vcards[0] }, { formattedName: 'Rui', vcard: vcards[1] }] });
  });

  it('location: locationMessage', async () => {
    const record = await p.sendVia('sendLocation', { to: to(), location: { latitude: -23.5613, longitude: -46.6565, address: 'Av. Paulista, 1578' } });
    p.expectSent(record, sealed({ locationMessage: { degreesLatitude: -23.5613, degreesLongitude: -46.6565, address: 'Av. Paulista, 1578' } }));
    const got = await p.received(record.key.id);
    p.expectStored(got.record, record);
    assert.deepEqual(got.message.content, { type: 'location', latitude: -23.5613, longitude: -46.6565, address: 'Av. Paulista, 1578' });
  });

  it('live-location: liveLocationMessage; the peer gets a location', async () => {
    const record = await p.sendVia('sendLiveLocation', { to: to(), latitude: 38.7223, longitude: -9.1393, caption: 'on my way' });
    p.expectSent(record, { liveLocationMessage: { degreesLatitude: 38.7223, degreesLongitude: -9.1393, caption: 'on my way' } });
    const got = await p.received(record.key.id);
    assert.deepEqual(got.message.content, { type: 'location', latitude: 38.7223, longitude: -9.1393 });
  });

  it('link: extendedTextMessage with the preview; the thumbnail is fetched once, the source never', async () => {
    const record = await p.sendVia('sendLink', {
      to: to(), title: 'Parley', text: 'Look at this', description: 'A messaging gateway', thumbnailUrl: media('/thumb.jpg'), sourceUrl: 'https://parley.example/',
    });
    p.expectSent(record, sealed({
      extendedTextMessage: {
        text: 'Look at this\nhttps://parley.example/', matchedText: 'https://parley.example/', description: 'A messaging gateway', title: 'Parley',
        previewType: 'NONE', jpegThumbnail: SAMPLES.jpeg.toString('base64'),
      },
    }));
    assert.equal(p.media.hitsOf('/thumb.jpg'), 1);
    const got = await p.received(record.key.id);
    p.expectStored(got.record, record);
    assert.deepEqual(got.message.content, {
      type: 'text', body: 'Look at this\nhttps://parley.example/',
      preview: { url: 'https://parley.example/', title: 'Parley', description: 'A messaging gateway', thumbnail: true },
    });
  });

  it('reaction: goes to the chat of the reacted message; an empty text removes it', async () => {
    const question = await p.sendVia('sendText', { to: p.alice.number, text: 'lunch?' }, p.bob);
    await p.received(question.key.id, p.alice);
    const record = await p.sendVia('sendReaction', { text: '👍', msgId: question.key.id });
    const target = { remoteJid: p.bob.jid, fromMe: false, id: question.key.id };
    const stamp = record.message.reactionMessage.senderTimestampMs;
    assert.match(stamp, /^\d{13}$/);
    assert.equal(Math.floor(Number(stamp) / 1000), Number(record.messageTimestamp));
    p.expectSent(record, { reactionMessage: { key: target, text: '👍', senderTimestampMs: stamp } });
    const got = await p.received(record.key.id);
    // Bob stores the reacted message's key as he sees it, as Baileys' cleanMessage rewrites it: his own
    // message, in his chat with alice, participant '' in a direct chat.
    const bobsView = { remoteJid: p.alice.jid, fromMe: true, id: question.key.id, participant: '' };
    p.expectStored(got.record, { ...record, message: { reactionMessage: { key: bobsView, text: '👍', senderTimestampMs: stamp } } });
    assert.deepEqual(got.message.content, { type: 'reaction', messageId: question.key.id, emoji: '👍' });

    const removal = await p.sendVia('sendReaction', { text: '', msgId: question.key.id });
    assert.deepEqual(removal.message.reactionMessage.text, '');
    const gotRemoval = await p.received(removal.key.id);
    assert.deepEqual(gotRemoval.message.content, { type: 'reaction', messageId: question.key.id });
  });

  it('presence: answers a message and the peer sees the presence', async () => {
    const res = await p.t.client(p.alice.key).call('sendPresence', { body: { to: to(), status: 'composing' } });
    assert.deepEqual(res, { status: 200, message: `presence composing sent to ${p.bob.jid}` });
    await p.t.waitFor(() => p.t.events.find((e) => e.type === 'presence' && e.instance === p.bob.id && e.jid === p.alice.jid && e.status === 'composing'),
      5000, 'bob to see alice composing');
  });

  it('pin and unpin: pinInChatMessage (PIN_FOR_ALL / UNPIN_FOR_ALL) for a message of the chat', async () => {
    const target = await p.sendVia('sendText', { to: to(), text: 'pin me' });
    await p.received(target.key.id);
    const pin = await p.sendVia('pinMessage', { id: target.key.id, duration: 3600 * 30 });
    const key = { remoteJid: p.bob.jid, fromMe: true, id: target.key.id };
    const stamp = pin.message.pinInChatMessage.senderTimestampMs;
    assert.equal(Math.floor(Number(stamp) / 1000), Number(pin.messageTimestamp));
    // The duration (30 hours, rounded up to 7 days) travels in messageContextInfo.
    p.expectSent(pin, sealed({ pinInChatMessage: { key, type: 'PIN_FOR_ALL', senderTimestampMs: stamp } }, { messageAddOnDurationInSecs: 604_800 }));
    const got = await p.received(pin.key.id);
    p.expectStored(got.record, pin);
    assert.deepEqual(got.message.content, { type: 'unsupported', typeName: 'pinInChatMessage' });

    const unpin = await p.sendVia('unpinMessage', { id: target.key.id });
    p.expectSent(unpin, sealed({ pinInChatMessage: { key, type: 'UNPIN_FOR_ALL', senderTimestampMs: unpin.message.pinInChatMessage.senderTimestampMs } }, { messageAddOnDurationInSecs: 0 }));
    p.expectStored((await p.received(unpin.key.id)).record, unpin);
  });

  it('call-link: creates a link and sends it with the caption', async () => {
    const record = await p.sendVia('sendCallLink', { to: to(), type: 'video', caption: 'Join the call' });
    const link = record.message.extendedTextMessage.text.split('\n')[1];
    assert.match(link, /^https:\/\/call\.whatsapp\.com\/video\/[\w-]{22}$/);
    p.expectSent(record, sealed({ extendedTextMessage: { text: `Join the call\n${link}` } }));
    const got = await p.received(record.key.id);
    assert.deepEqual(got.message.content, { type: 'text', body: `Join the call\n${link}` });
  });

  it('create-call-link: answers {data: {link}} and sends nothing', async () => {
    const before = p.messagesOf(p.alice).length;
    const res = await p.t.client(p.alice.key).call('createCallLink', { body: { type: 'audio' } });
    assert.deepEqual(Object.keys(res), ['status', 'data']);
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.data), ['link']);
    // An audio call's link says `voice`, as WhatsApp's do.
    assert.match(res.data.link, /^https:\/\/call\.whatsapp\.com\/voice\/[\w-]{22}$/);
    await p.t.settle();
    assert.equal(p.messagesOf(p.alice).length, before);
  });

  it('product: productMessage naming the product and its owner (WhatsApp\'s card has no catalog member)', async () => {
    const record = await p.sendVia('sendProduct', { to: to(), businessOwnerJid: '5511900000999', productId: 'prod-1', catalogId: 'cat-9' });
    p.expectSent(record, sealed({ productMessage: { product: { productId: 'prod-1' }, businessOwnerJid: '5511900000999@s.whatsapp.net' } }));
    const got = await p.received(record.key.id);
    p.expectStored(got.record, record);
    assert.deepEqual(got.message.content, { type: 'unsupported', typeName: 'productMessage' });
  });

  it('group-invite: groupInviteMessage valid for three days (expiry 64-bit, as text; no caption is an empty one); a group id given as digits goes as the JID', async () => {
    const record = await p.sendVia('sendGroupInvite', { to: to(), groupJid: '120363012345678901', groupName: 'Book club', inviteCode: 'AbCdEfGh12345' });
    p.expectSent(record, {
      groupInviteMessage: {
        groupJid: '120363012345678901@g.us', inviteCode: 'AbCdEfGh12345', inviteExpiration: String(Number(record.messageTimestamp) + 3 * 86400), groupName: 'Book club',
        caption: '',
      },
    });
    const got = await p.received(record.key.id);
    p.expectStored(got.record, record);
    assert.deepEqual(got.message.content, { type: 'unsupported', typeName: 'groupInviteMessage' });
  });

  it('request-phone: requestPhoneNumberMessage', async () => {
    const record = await p.sendVia('sendRequestPhone', { to: to() });
    p.expectSent(record, sealed({ requestPhoneNumberMessage: {} }));
    const got = await p.received(record.key.id);
    p.expectStored(got.record, record);
    assert.deepEqual(got.message.content, { type: 'unsupported', typeName: 'requestPhoneNumberMessage' });
  });

  it('a send reports sent, then delivered by the peer phone', async () => {
    const record = await p.sendVia('sendText', { to: to(), text: 'status check' });
    await p.t.waitFor(async () => (await p.t.client(p.alice.key).call('getMessage', { params: { messageId: record.key.id } })).data.status === 'DELIVERY_ACK', 5000, 'delivery');
    // The record is written before its event reaches subscribers: wait for the event as well.
    const statuses = () => p.t.events.filter((e) => e.type === 'message.status' && e.messageId === record.key.id).map((e) => (e as { status: string }).status);
    await p.t.waitFor(() => statuses().includes('delivered'), 5000, 'the delivered status event');
    assert.deepEqual(statuses(), ['sent', 'delivered']);
  });
});
