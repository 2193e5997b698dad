import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { proto, type BinaryNode } from '@whiskeysockets/baileys';
import type { FakeSocket } from '../src/testing/index.js';
import { eachOpenHarness, PEER, PEER_JID, type Harness } from './harness.js';

const T = 1_735_700_000;

/** The server's `<ack class="message">` of a relayed message, as WhatsApp sends it (an `error` when refused). */
const ack = (id: string, extra: Record<string, string> = {}): BinaryNode => ({ tag: 'ack', attrs: { class: 'message', id, from: PEER_JID, t: String(T), ...extra } });

// Baileys rc14 reports a send's SERVER_ACK only for `sender` receipts, which the sending device never gets:
// without the server's ack a WhatsApp send never reported `sent` (found on the simulator, issue 25).
describe('sent: the server\'s ack of an API send', () => {
  let h: Harness;
  let socket: FakeSocket;
  eachOpenHarness((harness, open) => {
    h = harness;
    socket = open;
  });
  const statuses = () => h.events.filter((e) => e.type === 'message.status');
  const send = (id: string) => h.adapter.capabilities.messaging!.send({ id, to: PEER, content: { type: 'text', text: 'oi' } });

  it('reports sent once, at the ack\'s time, however often the ack or Baileys\' SERVER_ACK comes', async () => {
    const record = await send('3EB0ACK00001');
    assert.equal(record.key.id, '3EB0ACK00001');
    socket.ws.emit('CB:ack,class:message', ack('3EB0ACK00001'));
    socket.ws.emit('CB:ack,class:message', ack('3EB0ACK00001'));
    socket.emit('messages.update', [{ key: { remoteJid: PEER_JID, fromMe: true, id: '3EB0ACK00001' }, update: { status: proto.WebMessageInfo.Status.SERVER_ACK, messageTimestamp: T + 5 } }]);
    await h.settle();
    assert.deepStrictEqual(statuses(), [{ type: 'message.status', messageId: '3EB0ACK00001', chatJid: PEER_JID, recipientId: PEER, status: 'sent', timestamp: T }]);
  });

  it('reports nothing for a refused send\'s ack, nor for acks of stanzas the API did not send', async () => {
    await send('3EB0ACK00002');
    socket.ws.emit('CB:ack,class:message', ack('3EB0ACK00002', { error: '479' }));
    socket.ws.emit('CB:ack,class:message', ack('PROTOCOL-MESSAGE-1'));
    await h.settle();
    assert.deepStrictEqual(statuses(), []);
  });
});
