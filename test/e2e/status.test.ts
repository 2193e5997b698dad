import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InstanceClient } from '@parley/client';
import { expectError } from '../support/api-assertions.js';
import { apiError } from '../support/api-error.js';
import { deliverText, eventsOf, jidOf, startWithPhones, type Phone } from '../support/conversation.js';
import { dataUri, MediaServer, SAMPLES, sha256Base64 } from '../support/media-server.js';
import { documentedClients, documentedRequests, type DocumentedRequest } from '../support/documented-answers.js';
import type { TestServer } from '../support/test-server.js';

const ALICE = '5511963000001';
const BOB = '5511963000002';
const CAROL = '5511963000003';
const DAVE = '5511963000004';
const STATUS = 'status@broadcast';

/** Spec 4.13 end to end: stories travel to the listed contacts' sandbox instances and land in their `status@broadcast` chat. */
describe('status stories (spec 4.13)', () => {
  let t: TestServer;
  let api: DocumentedRequest;
  let client: (key: string) => InstanceClient;
  let media: MediaServer;
  let alice: Phone;
  let bob: Phone;
  let carol: Phone;
  let dave: Phone;
  let offline: { key: string };
  let textStory: { id: string; timestamp: number };
  let mentionId: string;

  before(async () => {
    ({ t, phones: { alice, bob, carol, dave } } = await startWithPhones({ alice: ALICE, bob: BOB, carol: CAROL, dave: DAVE }));
    api = await documentedRequests(t);
    client = await documentedClients(t);
    media = await MediaServer.start();
    offline = await t.createInstance({ channel: 'sandbox', name: 'offline', number: '5511963000099' });
    // Bob and Carol keep others' stories; Dave keeps the default (receive_status_message off).
    for (const p of [bob, carol]) assert.equal((await client(p.key).call('updateInstanceFlags', { query: { receiveStatusMessage: true } })).status, 200);
  });
  after(async () => {
    await t.stop();
    await media.stop();
  });

  const messagesOf = (p: Phone, jid: string, limit?: number) => client(p.key).call('listChatMessages', { params: { jid }, query: { limit } });
  const statusChat = (p: Phone) => messagesOf(p, STATUS, 100);
  const storyOn = (p: Phone, id: string) => t.waitFor(async () => (await statusChat(p)).data.find((m) => m.key.id === id),
    5000, `story ${id} on ${p.number}`);

  it('posts a text story: a listed contact receives it in status@broadcast, an unlisted one does not; the poster keeps its copy', async () => {
    const res = await client(alice.key).call('postTextStatus', { body: { text: 'Out for lunch', statusJidList: [BOB, jidOf(DAVE)] } });
    assert.equal(res.status, 200, JSON.stringify(res));
    textStory = res.data;
    assert.match(textStory.id, /^3EB0[0-9A-F]{18}$/);
    assert.deepEqual(res, { status: 200, data: { id: textStory.id, type: 'text', statusJidList: [jidOf(BOB), jidOf(DAVE)], timestamp: textStory.timestamp } });

    const got = await storyOn(bob, textStory.id);
    assert.deepEqual(got.key, { remoteJid: STATUS, fromMe: false, id: textStory.id, participant: jidOf(ALICE) });
    assert.deepEqual(got.message, { extendedTextMessage: { text: 'Out for lunch' } });
    assert.equal(got.messageTimestamp, String(textStory.timestamp));
    const inbound = eventsOf(t, bob.id, 'message').find((e) => e.message.id === textStory.id);
    assert.deepEqual([inbound.message.chatJid, inbound.message.chatType, inbound.message.from, inbound.message.groupId], [STATUS, 'individual', ALICE, undefined]);
    // A story names neither the chat nor a contact after its poster.
    assert.equal((await client(bob.key).call('listChats')).data.find((c) => c.id === STATUS)!.name, STATUS);
    assert.deepEqual((await client(bob.key).call('listContacts')).data, []);

    const own = await storyOn(alice, textStory.id);
    assert.deepEqual(own.key, { remoteJid: STATUS, fromMe: true, id: textStory.id, participant: jidOf(ALICE) });

    // Dave's phone got it (its delivery receipt reached Alice), but his instance keeps no stories.
    await t.waitFor(() => eventsOf(t, alice.id, 'message.status').some((e) => e.messageId === textStory.id && e.recipientId === DAVE), 5000, 'dave\'s receipt');
    await t.settle();
    assert.deepEqual((await statusChat(dave)).data, []);
    assert.equal(eventsOf(t, dave.id, 'message').length, 0);
    assert.deepEqual((await statusChat(carol)).data, []);
  });

  it('an empty or absent statusJidList shares the story with every stored contact', async () => {
    await deliverText(t, bob, alice, 'hi alice');
    const api = client(alice.key);
    assert.equal((await api.call('saveContact', { body: { number: CAROL, name: 'Carol' } })).status, 200);
    await t.settle();
    const res = await api.call('postTextStatus', { body: { text: 'Hello contacts', statusJidList: [], backgroundColor: '#FF0000', font: 2 } });
    assert.deepEqual(res.data.statusJidList, [jidOf(BOB), jidOf(CAROL)]);
    for (const p of [bob, carol]) {
      const got = await storyOn(p, res.data.id);
      assert.deepEqual(got.message, { extendedTextMessage: { text: 'Hello contacts', backgroundArgb: 0xffff0000, font: 2 } });
    }
    const absent = await api.call('postTextStatus', { body: { text: 'Again' } });
    assert.deepEqual(absent.data.statusJidList, [jidOf(BOB), jidOf(CAROL)]);
    await storyOn(carol, absent.data.id);
  });

  it('posts image, video and audio stories: the receiver gets the media bytes, the poster serves them too', async () => {
    const url = media.serve('/story.png', { body: SAMPLES.png, type: 'image/png' });
    const api = client(alice.key);
    const image = await api.call('postImageStatus', { body: { url, caption: 'View', statusJidList: [BOB] } });
    assert.equal(image.status, 200, JSON.stringify(image));
    assert.deepEqual(image.data, { id: image.data.id, type: 'image', statusJidList: [jidOf(BOB)], timestamp: image.data.timestamp });
    const video = await api.call('postVideoStatus', { body: { url: media.serve('/clip.mp4', { body: SAMPLES.mp4, type: 'video/mp4' }), caption: 'Clip', statusJidList: [BOB] } });
    assert.equal(video.data.type, 'video');
    const audio = await api.call('postAudioStatus', { body: { url: media.serve('/voice.ogg', { body: SAMPLES.ogg, type: 'audio/ogg' }), statusJidList: [BOB] } });
    assert.equal(audio.data.type, 'audio');

    for (const [story, member, bytes, mime, caption] of [
      [image, 'imageMessage', SAMPLES.png, 'image/png', 'View'], [video, 'videoMessage', SAMPLES.mp4, 'video/mp4', 'Clip'],
      [audio, 'audioMessage', SAMPLES.ogg, 'audio/ogg', undefined],
    ] as const) {
      const id = story.data.id;
      const got = await storyOn(bob, id);
      const content = got.message[member] as { mimetype: string; fileSha256: string; caption?: string };
      assert.equal(content.mimetype, mime);
      assert.equal(content.fileSha256, sha256Base64(bytes));
      assert.equal(content.caption, caption);
      for (const p of [bob, alice]) {
        const served = await client(p.key).call('getMessageMedia', { params: { messageId: id }, query: { format: 'binary' } });
        assert.ok(served instanceof Uint8Array, `${member} on ${p.number}`);
        assert.ok(Buffer.from(served).equals(bytes), `${member} bytes on ${p.number}`);
      }
    }
    assert.equal(media.hitsOf('/story.png'), 1);
  });

  it('mentions a contact: it gets the story and a statusMentionMessage; a listed contact is not sent the story twice', async () => {
    const api = client(alice.key);
    const res = await api.call('mentionInStatus', { body: { jid: jidOf(CAROL), statusMsgId: textStory.id } });
    assert.equal(res.status, 200, JSON.stringify(res));
    const mention = res.data;
    assert.deepEqual(res, { status: 200, data: { id: mention.id, type: 'mention', statusJidList: [jidOf(CAROL)], timestamp: mention.timestamp } });
    assert.notEqual(mention.id, textStory.id);
    mentionId = mention.id;
    const story = await storyOn(carol, textStory.id);
    assert.deepEqual(story.message, { extendedTextMessage: { text: 'Out for lunch' } });
    const note = await t.waitFor(async () => (await messagesOf(carol, ALICE)).data.find((m) => m.key.id === mention.id),
      5000, 'the mention message on carol');
    assert.deepEqual(note.key, { remoteJid: jidOf(ALICE), fromMe: false, id: mention.id });
    assert.deepEqual(note.message, {
      statusMentionMessage: { message: { protocolMessage: { key: { remoteJid: STATUS, fromMe: true, id: textStory.id }, type: 'STATUS_MENTION_MESSAGE' } } },
    });

    const again = await api.call('mentionInStatus', { body: { jid: BOB, statusMsgId: textStory.id } });
    assert.equal(again.status, 200);
    await t.waitFor(async () => (await messagesOf(bob, ALICE)).data.some((m) => m.key.id === again.data.id),
      5000, 'the mention message on bob');
    await t.settle();
    assert.equal((await statusChat(bob)).data.filter((m) => m.key.id === textStory.id).length, 1);
    assert.equal(eventsOf(t, bob.id, 'message').filter((e) => e.message.id === textStory.id).length, 1);
  });

  describe('bad input changes nothing', () => {
    it('rejects malformed stories and mentions (400 naming the field) without posting', async () => {
      const before = (await statusChat(alice)).total;
      // Bodies the typed client refuses at compile time (missing members, wrong types, unknown members): sent raw.
      const raw: [string, unknown, string][] = [
        ['text', { statusJidList: [BOB] }, 'body.text is required'],
        ['text', { text: 'x', statusJidList: BOB }, 'body.statusJidList must be array'],
        ['image', { caption: 'x' }, 'body.url is required'],
        ['audio', { url: 'https://cdn.example.com/a.ogg', caption: 'x' }, 'body.caption is not allowed'],
        ['mention', { jid: BOB }, 'body.statusMsgId is required'],
      ];
      for (const [kind, body, message] of raw) {
        expectError(await api('POST', `/${alice.key}/status/${kind}`, body), 400, 'validation_failed', message);
      }
      const a = client(alice.key);
      const typed: [() => Promise<unknown>, string][] = [
        [() => a.call('postTextStatus', { body: { text: 'x'.repeat(701) } }), 'body.text must NOT have more than 700 characters'],
        [() => a.call('postTextStatus', { body: { text: 'x', statusJidList: [BOB, '120363000000000001@g.us'] } }), 'body.statusJidList[1] must be a phone number or a contact JID, not a group or broadcast'],
        [() => a.call('postTextStatus', { body: { text: 'x', statusJidList: ['abc'] } }), 'body.statusJidList[0] must be a phone number with country code (6 to 15 digits) or a JID'],
        [() => a.call('postTextStatus', { body: { text: 'x', backgroundColor: 'red' } }), 'body.backgroundColor must match pattern "^#([0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$"'],
        [() => a.call('postTextStatus', { body: { text: 'x', font: 12 } }), 'body.font must be <= 9'],
        [() => a.call('postImageStatus', { body: { url: dataUri('text/plain', Buffer.from('hi')) } }), 'body.url has content type text/plain, which is not a valid image'],
        [() => a.call('postVideoStatus', { body: { url: dataUri('image/png', Buffer.from('not a video')) } }), 'body.url has content type image/png, which is not a valid video'],
        [() => a.call('mentionInStatus', { body: { jid: 'status@broadcast', statusMsgId: textStory.id } }), 'body.jid must be a phone number or a contact JID, not a group or broadcast'],
      ];
      for (const [call, message] of typed) {
        await assert.rejects(call(), apiError(400, 'validation_failed', message), message);
      }
      await t.settle();
      assert.equal((await statusChat(alice)).total, before);
    });

    it('answers 404 for a story that is not one of the instance\'s live stories', async () => {
      const mentionOf = (p: Phone, jid: string, statusMsgId: string) => client(p.key).call('mentionInStatus', { body: { jid, statusMsgId } });
      await assert.rejects(mentionOf(alice, BOB, '3EB0000000000000000000'), apiError(404, 'status_not_found', 'status story 3EB0000000000000000000 not found'));
      // A mention is no story to mention.
      await assert.rejects(mentionOf(alice, BOB, mentionId), apiError(404, 'status_not_found'));
      // Another instance's story cannot be mentioned by Bob.
      await assert.rejects(mentionOf(bob, CAROL, textStory.id), apiError(404, 'status_not_found'));
    });

    it('answers 409 not_connected for an instance that is not connected', async () => {
      const before = (await statusChat(bob)).total;
      const off = client(offline.key);
      await assert.rejects(off.call('postTextStatus', { body: { text: 'x', statusJidList: [BOB] } }), apiError(409, 'not_connected'));
      await assert.rejects(off.call('postImageStatus', { body: { url: dataUri('image/png', SAMPLES.png), statusJidList: [BOB] } }), apiError(409, 'not_connected'));
      await assert.rejects(off.call('mentionInStatus', { body: { jid: BOB, statusMsgId: textStory.id } }), apiError(409, 'not_connected'));
      await t.settle();
      assert.equal((await statusChat(bob)).total, before);
    });
  });
});
