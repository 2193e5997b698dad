import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SAMPLES } from '../support/media-server.js';
import { sealed } from '../support/message-secret.js';
import { MessagingPair } from '../support/messaging.js';

const ARTICLE = `<!doctype html><html><head><meta charset="utf-8">
<title>Fallback title</title>
<meta property="og:title" content="The blue mug">
<meta property="og:description" content="A mug, blue, 350 ml.">
<meta property="og:image" content="/img/mug.jpg">
</head><body><h1>Mug</h1></body></html>`;

const PLAIN = '<html><head><title>Only a title</title><meta name="description" content="From the description tag"></head><body></body></html>';

/** Mentions, link previews and `quoted` on sends, as the receiving sandbox phone sees them. */
describe('richer text sends: mentions, link previews, quoted', () => {
  let p: MessagingPair;
  let carol: { id: string; key: string; number: string; jid: string };

  before(async () => {
    p = await MessagingPair.start({}, ['5511940000101', '5511940000102']);
    const created = await p.t.connectedSandbox({ name: 'carol', number: '5511940000103' });
    carol = { id: created.id, key: created.key, number: '5511940000103', jid: '5511940000103@s.whatsapp.net' };
    p.media.serve('/article.html', { body: Buffer.from(ARTICLE), type: 'text/html; charset=utf-8' });
    p.media.serve('/img/mug.jpg', { body: SAMPLES.jpeg, type: 'image/jpeg' });
    p.media.serve('/plain.html', { body: Buffer.from(PLAIN), type: 'text/html' });
    p.media.serve('/gone.html', { status: 404 });
  });
  after(async () => {
    await p.stop();
  });

  it('mentions on a text: contextInfo.mentionedJid in the record, and `mentions` in the receiver\'s event and stored record', async () => {
    const text = `hi @${p.bob.number} and @${carol.number}`;
    const record = await p.sendVia('sendText', { to: p.bob.number, text, mentions: [p.bob.number, carol.jid] });
    const mentioned = [p.bob.jid, carol.jid];
    p.expectSent(record, sealed({ extendedTextMessage: { text, contextInfo: { mentionedJid: mentioned, nonJidMentions: 0 } } }));
    const got = await p.received(record.key.id);
    assert.deepEqual(got.message.mentions, mentioned);
    assert.deepEqual(got.message.content, { type: 'text', body: text });
    p.expectStored(got.record, record);
  });

  it('mentions on an image caption', async () => {
    const url = `${p.media.url}/img/mug.jpg`;
    const record = await p.sendVia('sendImage', { to: p.bob.number, url, caption: `for @${p.bob.number}`, mentions: [p.bob.number] });
    assert.deepEqual(record.message.imageMessage.contextInfo, { mentionedJid: [p.bob.jid] });
    const got = await p.received(record.key.id);
    assert.deepEqual(got.message.mentions, [p.bob.jid]);
  });

  it('everyone in a group: every member, nonJidMentions 1; refused outside a group', async () => {
    const group = await p.t.client(p.alice.key).call('createGroup', { body: { name: 'Rich', participants: [p.bob.number, carol.number] } });
    const gid = group.data.id;
    await p.t.settle();
    const record = await p.sendVia('sendText', { to: gid, text: '@everyone stand-up now', mentions: ['everyone'] });
    const members = [p.alice.jid, p.bob.jid, carol.jid];
    assert.deepEqual(record.message.extendedTextMessage.contextInfo, { mentionedJid: members, nonJidMentions: 1 });
    const got = await p.received(record.key.id);
    assert.deepEqual(got.message.mentions, members);

    const outside = await p.t.request('POST', `/${p.alice.key}/message/text`, { to: p.bob.number, text: 'hi all', mentions: ['everyone'] });
    assert.equal(outside.status, 400);
    assert.match(outside.body.error.message, /body\.mentions\[0\]/);
    const bad = await p.t.request('POST', `/${p.alice.key}/message/text`, { to: p.bob.number, text: 'x', mentions: [p.bob.number, 'not-a-number'] });
    assert.equal(bad.status, 400);
    assert.match(bad.body.error.message, /body\.mentions\[1\]/);
    const groupMention = await p.t.request('POST', `/${p.alice.key}/message/text`, { to: p.bob.number, text: 'x', mentions: [gid] });
    assert.equal(groupMention.status, 400);
  });

  it('linkPreview: the page\'s Open Graph title, description and image, fetched and sent; the receiver sees the preview', async () => {
    const link = `${p.media.url}/article.html`;
    const text = `look at this ${link}.`;
    const record = await p.sendVia('sendText', { to: p.bob.number, text, linkPreview: true });
    p.expectSent(record, sealed({
      extendedTextMessage: {
        text, matchedText: link, description: 'A mug, blue, 350 ml.', title: 'The blue mug', previewType: 'NONE', jpegThumbnail: SAMPLES.jpeg.toString('base64'),
      },
    }));
    const got = await p.received(record.key.id);
    assert.deepEqual(got.message.content, { type: 'text', body: text, preview: { url: link, title: 'The blue mug', description: 'A mug, blue, 350 ml.', thumbnail: true } });
    p.expectStored(got.record, record);
  });

  it('linkPreview falls back on the HTML title and description; a page that fails sends the text without preview', async () => {
    const plain = await p.sendVia('sendText', { to: p.bob.number, text: `${p.media.url}/plain.html`, linkPreview: true });
    assert.equal(plain.message.extendedTextMessage.title, 'Only a title');
    assert.equal(plain.message.extendedTextMessage.description, 'From the description tag');
    assert.equal(plain.message.extendedTextMessage.jpegThumbnail, undefined);
    const gone = await p.sendVia('sendText', { to: p.bob.number, text: `see ${p.media.url}/gone.html`, linkPreview: true });
    p.expectSent(gone, sealed({ extendedTextMessage: { text: `see ${p.media.url}/gone.html` } }));
    const none = await p.t.request('POST', `/${p.alice.key}/message/text`, { to: p.bob.number, text: 'no link here', linkPreview: true });
    assert.equal(none.status, 400);
    assert.equal(none.body.error.details.fields[0].field, 'body.linkPreview');
  });

  it('quoted: the same reply the reply route sends, with mentions in the same contextInfo; 404 for an unknown message', async () => {
    const first = await p.sendVia('sendText', { to: p.alice.number, text: 'question?' }, p.bob);
    const incoming = await p.received(first.key.id, p.alice);
    const viaBody = await p.sendVia('sendText', { to: p.bob.number, text: `yes @${carol.number}`, quoted: { messageId: incoming.message.id }, mentions: [carol.number] });
    const viaRoute = await p.sendVia('replyText', { to: p.bob.number, text: 'yes again' }, p.alice, { messageId: incoming.message.id });
    const quote = { stanzaId: incoming.message.id, participant: p.bob.jid, quotedMessage: { extendedTextMessage: { text: 'question?' } } };
    p.expectSent(viaBody, sealed({ extendedTextMessage: { text: `yes @${carol.number}`, contextInfo: { ...quote, mentionedJid: [carol.jid], nonJidMentions: 0 } } }));
    p.expectSent(viaRoute, sealed({ extendedTextMessage: { text: 'yes again', contextInfo: quote } }));
    const got = await p.received(viaBody.key.id);
    assert.deepEqual(got.message.context, { from: p.bob.number, id: incoming.message.id });
    assert.deepEqual(got.message.mentions, [carol.jid]);

    const unknown = await p.t.request('POST', `/${p.alice.key}/message/text`, { to: p.bob.number, text: 'x', quoted: { messageId: 'NOPE' } });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, 'message_not_found');
    // The reply route names the quoted message in its path: its body takes no `quoted`.
    const both = await p.t.request('POST', `/${p.alice.key}/message/${incoming.message.id}/text`, { to: p.bob.number, text: 'x', quoted: { messageId: incoming.message.id } });
    assert.equal(both.status, 400);
  });
});

describe('linkPreview with private URLs refused (allowPrivateUrls off)', () => {
  let p: MessagingPair;

  before(async () => {
    p = await MessagingPair.start({ config: { allowPrivateUrls: false } }, ['5511940000201', '5511940000202']);
    p.media.serve('/article.html', { body: Buffer.from(ARTICLE), type: 'text/html' });
  });
  after(async () => {
    await p.stop();
  });

  it('a link to a private address: 400, nothing fetched, nothing sent', async () => {
    const res = await p.t.request('POST', `/${p.alice.key}/message/text`, { to: p.bob.number, text: `see ${p.media.url}/article.html`, linkPreview: true });
    assert.equal(res.status, 400);
    assert.match(res.body.error.message, /body\.text link .*private network/);
    assert.equal(p.media.hitsOf('/article.html'), 0);
    await p.t.settle();
    assert.equal(p.messagesOf(p.bob).length, 0);
    // Without linkPreview the same text is just a text.
    assert.equal((await p.t.request('POST', `/${p.alice.key}/message/text`, { to: p.bob.number, text: `see ${p.media.url}/article.html` })).status, 200);
  });
});
