import assert from 'node:assert/strict';
import { afterEach, describe, it, mock } from 'node:test';
import type { ChannelEventPayload } from '@parley/core';
import { proto, type WAMessage } from '@whiskeysockets/baileys';
import { CIPHERTEXT_GRACE_MS } from '../src/events/undecrypted.js';
import { HISTORY_EVENT_BYTES, HISTORY_EVENT_RECORDS } from '../src/mapping/history.js';
import { FAKE_LINKED_AT, type FakeSocket } from '../src/testing/index.js';
import { eachOpenHarness, INSTANCE_ID, PEER_JID, type Harness } from './harness.js';

type History = Extract<ChannelEventPayload, { type: 'history' }>;
const THUMB = Buffer.alloc(2_000, 0xff);

function text(id: string, seconds: number, body = 'old message'): WAMessage {
  return { key: { remoteJid: PEER_JID, fromMe: false, id }, message: proto.Message.fromObject({ conversation: body }), messageTimestamp: seconds };
}

// History sync on link (issue 25, defect 6): bounded events, no inline thumbnails, no live message lost.
describe('history sync events', () => {
  let h: Harness;
  let socket: FakeSocket;
  eachOpenHarness((harness, open) => {
    h = harness;
    socket = open;
  });
  afterEach(() => mock.timers.reset());

  async function sync(messages: WAMessage[], isLatest = true): Promise<History[]> {
    socket.emit('messaging-history.set', { chats: [], contacts: [], messages, isLatest, progress: 40 });
    await h.settle();
    return h.eventsOf('history');
  }

  it(`splits a chunk into events of at most ${HISTORY_EVENT_RECORDS} records, isLatest on the last only`, async () => {
    const messages = Array.from({ length: 1_200 }, (_, i) => text(`3EB0H${String(i).padStart(6, '0')}`, FAKE_LINKED_AT - 10_000 + i));
    const events = await sync(messages);
    assert.deepStrictEqual(events.map((e) => [e.messages.length, e.isLatest, e.progress]), [[500, false, 40], [500, false, 40], [200, true, 40]]);
    assert.deepStrictEqual(events.flatMap((e) => e.messages.map((m) => m.key.id)), messages.map((m) => m.key.id));
  });

  it(`keeps each event under ${HISTORY_EVENT_BYTES} bytes of records`, async () => {
    const big = 'x'.repeat(400_000);
    const events = await sync([1, 2, 3, 4, 5].map((i) => text(`3EB0BIG0000${i}`, FAKE_LINKED_AT - 100 + i, big)));
    assert.deepStrictEqual(events.map((e) => e.messages.length), [2, 2, 1]);
    for (const event of events) assert.ok(JSON.stringify(event.messages).length <= HISTORY_EVENT_BYTES + 1_000);
  });

  it('drops inline thumbnails from history records (the media stay downloadable), also in quoted messages', async () => {
    const image = {
      url: 'https://mmg.whatsapp.net/v/t62.7118-24/1.enc', mimetype: 'image/jpeg', jpegThumbnail: THUMB, caption: 'menu',
      contextInfo: { stanzaId: '3EB0Q', quotedMessage: { videoMessage: { mimetype: 'video/mp4', jpegThumbnail: THUMB } } },
    };
    const [event] = await sync([{ key: { remoteJid: PEER_JID, fromMe: false, id: '3EB0THUMB1' }, message: proto.Message.fromObject({ imageMessage: image }), messageTimestamp: FAKE_LINKED_AT - 5 }]);
    const stored = JSON.stringify(event!.messages[0]!.message);
    assert.doesNotMatch(stored, /Thumbnail/);
    assert.match(stored, /"caption":"menu"/);
    assert.match(stored, /"quotedMessage":\{"videoMessage":\{"mimetype":"video\/mp4"\}\}/);
  });

  it('a message newer than the link that Baileys folded into a history set is a message event too, unless already handled', async () => {
    await h.storage.messages.upsert(INSTANCE_ID, {
      key: { remoteJid: PEER_JID, fromMe: false, id: '3EB0LIVE02' }, message: { conversation: 'seen live' }, messageTimestamp: String(FAKE_LINKED_AT + 20),
      status: 'DELIVERY_ACK', provider: 'whatsapp',
    });
    await sync([
      text('3EB0OLD001', FAKE_LINKED_AT - 60),
      text('3EB0LIVE01', FAKE_LINKED_AT + 30, 'sent while the history was syncing'),
      text('3EB0LIVE02', FAKE_LINKED_AT + 20, 'seen live'),
    ]);
    assert.deepStrictEqual(h.events.map((e) => (e.type === 'history' ? ['history', e.messages.length] : [e.type, e.type === 'message' && e.message.id])), [
      ['history', 3],
      ['message', '3EB0LIVE01'],
    ]);
  });

  it('a live message Baileys put in a history set and also flushed as an upsert of the same window is one message event', async () => {
    // Utils/event-buffer.js: an upsert comes first, a history set holding the same key joins the set too
    // (the upsert stays), and the flush emits the history set before the upserts.
    const live = text('3EB0BOTH01', FAKE_LINKED_AT + 30, 'sent while the history was syncing');
    await sync([text('3EB0OLD002', FAKE_LINKED_AT - 60), live]);
    socket.emit('messages.upsert', { messages: [live], type: 'notify' });
    await h.settle();
    assert.deepStrictEqual(h.events.filter((e) => e.type === 'message').map((e) => e.type === 'message' && e.message.id), ['3EB0BOTH01']);
    // A later upsert of the same id (an edit's original, a resend) is not swallowed.
    socket.emit('messages.upsert', { messages: [live], type: 'notify' });
    await h.settle();
    assert.equal(h.events.filter((e) => e.type === 'message').length, 2);
  });

  it('a message first undecryptable whose decrypted copy comes in a history set is that message, never message-unsupported', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    const stub: WAMessage = { ...text('3EB0STUB001', FAKE_LINKED_AT + 30), message: undefined, messageStubType: proto.WebMessageInfo.StubType.CIPHERTEXT, messageStubParameters: ['Bad MAC'] };
    socket.emit('messages.upsert', { messages: [stub], type: 'notify' });
    await h.settle();
    await sync([text('3EB0STUB001', FAKE_LINKED_AT + 30, 'decrypted at last')]);
    mock.timers.tick(CIPHERTEXT_GRACE_MS);
    await h.settle();
    const messages = h.events.flatMap((e) => (e.type === 'message' ? [[e.message.id, e.message.content.type]] : []));
    assert.deepStrictEqual(messages, [['3EB0STUB001', 'text']]);
  });
});
