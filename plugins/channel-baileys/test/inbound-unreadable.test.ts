import assert from 'node:assert/strict';
import { afterEach, describe, it, mock } from 'node:test';
import type { ChannelEventPayload } from '@parley/core';
import { proto, type WAMessage } from '@whiskeysockets/baileys';
import { CIPHERTEXT_GRACE_MS } from '../src/events/undecrypted.js';
import type { FakeSocket } from '../src/testing/index.js';
import { connectOpen, createHarness, eachOpenHarness, PEER, PEER_JID, type Harness } from './harness.js';

const T = 1_735_700_000;
const CIPHERTEXT = proto.WebMessageInfo.StubType.CIPHERTEXT;

function envelope(id: string, extra: Partial<WAMessage> = {}, key: Partial<WAMessage['key']> = {}): WAMessage {
  return { key: { remoteJid: PEER_JID, fromMe: false, id, ...key }, messageTimestamp: T, pushName: 'Maria Silva', ...extra };
}

function unsupported(id: string, typeName: string): ChannelEventPayload {
  return {
    type: 'message',
    message: {
      id, chatJid: PEER_JID, from: PEER, fromMe: false, timestamp: T, chatType: 'individual', pushName: 'Maria Silva',
      content: { type: 'unsupported', typeName },
      record: { key: { remoteJid: PEER_JID, fromMe: false, id }, message: {}, messageTimestamp: String(T), status: 'DELIVERY_ACK', provider: 'whatsapp', pushName: 'Maria Silva' },
    },
  };
}

// Messages a linked device cannot read (issue 25, defect 8): reported once as message-unsupported.
describe('inbound messages without readable content', () => {
  let h: Harness;
  let socket: FakeSocket;
  eachOpenHarness((harness, open) => {
    h = harness;
    socket = open;
  });
  afterEach(() => mock.timers.reset());

  async function receive(...messages: WAMessage[]): Promise<void> {
    socket.emit('messages.upsert', { messages, type: 'notify' });
    await h.settle();
  }

  it('a view-once message (only the phone gets its media) is message-unsupported with type view_once, at once', async () => {
    await receive(envelope('3EB0VIEWONCE01', {}, { isViewOnce: true }));
    assert.deepStrictEqual(h.events, [unsupported('3EB0VIEWONCE01', 'view_once')]);
  });

  it('a message that never decrypts is message-unsupported with type ciphertext, once, after the grace for a resend', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    const stub = envelope('3EB0CIPHER0001', { messageStubType: CIPHERTEXT, messageStubParameters: ['Bad MAC'] });
    await receive(stub);
    await receive(stub);
    assert.deepStrictEqual(h.events, [], 'held while the sender may resend');
    mock.timers.tick(CIPHERTEXT_GRACE_MS);
    await h.settle();
    assert.deepStrictEqual(h.events, [unsupported('3EB0CIPHER0001', 'ciphertext')]);
    mock.timers.tick(CIPHERTEXT_GRACE_MS);
    await h.settle();
    assert.equal(h.events.length, 1);
  });

  it('a resend that decrypts is reported as itself, and its stub never', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    await receive(envelope('3EB0CIPHER0002', { messageStubType: CIPHERTEXT, messageStubParameters: ['No session'] }));
    await receive(envelope('3EB0CIPHER0002', { message: proto.Message.fromObject({ conversation: 'sent again' }) }));
    mock.timers.tick(CIPHERTEXT_GRACE_MS * 2);
    await h.settle();
    assert.deepStrictEqual(h.events.map((e) => e.type === 'message' && [e.message.id, e.message.content]), [
      ['3EB0CIPHER0002', { type: 'text', body: 'sent again' }],
    ]);
  });

  it('a stub still waiting when the adapter stops is reported then, not lost', async () => {
    await receive(envelope('3EB0CIPHER0003', { messageStubType: CIPHERTEXT, messageStubParameters: ['Bad MAC'] }));
    assert.deepStrictEqual(h.events, []);
    await h.adapter.stop();
    assert.deepStrictEqual(h.events, [unsupported('3EB0CIPHER0003', 'ciphertext')]);
  });

  it('an album\'s parent produces no event; its images arrive as messages of their own', async () => {
    await receive(envelope('3EB0ALBUM00001', { message: proto.Message.fromObject({ albumMessage: { expectedImageCount: 2 } }) }));
    assert.deepStrictEqual(h.events, []);
  });
});

describe('the grace for a resend, set by undecryptableGraceMs', () => {
  afterEach(() => mock.timers.reset());

  it('reports a message that never decrypts once that grace has passed, not before', async () => {
    const h = await createHarness({ options: { undecryptableGraceMs: 5_000 } });
    const socket = await connectOpen(h);
    mock.timers.enable({ apis: ['setTimeout'] });
    socket.emit('messages.upsert', { messages: [envelope('3EB0CIPHER0009', { messageStubType: CIPHERTEXT, messageStubParameters: ['Bad MAC'] })], type: 'notify' });
    await h.settle();
    mock.timers.tick(4_999);
    await h.settle();
    assert.deepStrictEqual(h.eventsOf('message'), [], 'held for the grace');
    mock.timers.tick(1);
    await h.settle();
    assert.deepStrictEqual(h.eventsOf('message'), [unsupported('3EB0CIPHER0009', 'ciphertext')]);
    mock.timers.reset();
    await h.adapter.stop();
  });
});
