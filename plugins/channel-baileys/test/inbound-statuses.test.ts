import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { proto, type BinaryNode } from '@whiskeysockets/baileys';
import type { FakeSocket } from '../src/testing/index.js';
import { eachOpenHarness, GROUP_JID, INSTANCE_ID, PEER, PEER_JID, type Harness } from './harness.js';

const T = 1_735_700_000;
const Status = proto.WebMessageInfo.Status;
const MEMBER = '5511955554444@s.whatsapp.net';

// What WhatsApp's receipts say, not what Parley's clock or Baileys' buffer make of them (issue 25, defect 7).
describe('delivery statuses as the receipts tell them', () => {
  let h: Harness;
  let socket: FakeSocket;
  eachOpenHarness((harness, open) => {
    h = harness;
    socket = open;
  });

  async function sent(id: string, status: 'SERVER_ACK' | 'DELIVERY_ACK'): Promise<void> {
    await h.storage.messages.upsert(INSTANCE_ID, {
      key: { remoteJid: PEER_JID, fromMe: true, id }, message: { conversation: 'hi' }, messageTimestamp: String(T), status, provider: 'whatsapp',
    });
  }

  const oneToOne = (id: string) => ({ type: 'message.status' as const, messageId: id, chatJid: PEER_JID, recipientId: PEER });

  it('a status carries the receipt\'s time (its t), not the time Parley handled it', async () => {
    socket.emit('messages.update', [{ key: { remoteJid: PEER_JID, fromMe: true, id: '3EB0AAAA01' }, update: { status: Status.DELIVERY_ACK, messageTimestamp: T + 50 } }]);
    await h.settle();
    assert.deepStrictEqual(h.events, [{ ...oneToOne('3EB0AAAA01'), status: 'delivered', timestamp: T + 50 }]);
  });

  it('a read that Baileys\' buffer merged with the delivery (one update, READ) reports delivered first', async () => {
    await sent('3EB0AAAA02', 'SERVER_ACK');
    await sent('3EB0AAAA03', 'DELIVERY_ACK');
    socket.emit('messages.update', [
      { key: { remoteJid: PEER_JID, fromMe: true, id: '3EB0AAAA02' }, update: { status: Status.READ, messageTimestamp: T + 60 } },
      { key: { remoteJid: PEER_JID, fromMe: true, id: '3EB0AAAA03' }, update: { status: Status.READ, messageTimestamp: T + 61 } },
    ]);
    await h.settle();
    assert.deepStrictEqual(h.events, [
      { ...oneToOne('3EB0AAAA02'), status: 'delivered', timestamp: T + 60 },
      { ...oneToOne('3EB0AAAA02'), status: 'read', timestamp: T + 60 },
      // Already reported delivered: only the read.
      { ...oneToOne('3EB0AAAA03'), status: 'read', timestamp: T + 61 },
    ]);
  });

  it('a merged delivery and read: delivered carries the delivery receipt\'s own time, seen on the receipt stanza', async () => {
    await sent('3EB0AAAA05', 'SERVER_ACK');
    // Baileys' handler hears both stanzas; its buffer then merges them into one READ update with the read's time.
    socket.ws.emit('CB:receipt', { tag: 'receipt', attrs: { from: PEER_JID, id: '3EB0AAAA05', t: String(T + 80) } });
    socket.ws.emit('CB:receipt', { tag: 'receipt', attrs: { from: PEER_JID, id: '3EB0AAAA05', type: 'read', t: String(T + 95) } });
    socket.emit('messages.update', [{ key: { remoteJid: PEER_JID, fromMe: true, id: '3EB0AAAA05' }, update: { status: Status.READ, messageTimestamp: T + 95 } }]);
    await h.settle();
    assert.deepStrictEqual(h.events, [
      { ...oneToOne('3EB0AAAA05'), status: 'delivered', timestamp: T + 80 },
      { ...oneToOne('3EB0AAAA05'), status: 'read', timestamp: T + 95 },
    ]);
  });

  it('a group member\'s played receipt is played, though Baileys files it as a read', async () => {
    const played: BinaryNode = { tag: 'receipt', attrs: { from: GROUP_JID, id: '3EB0AAAA04', participant: MEMBER, type: 'played', t: String(T + 70) } };
    // Baileys' handler hears the stanza first and reports it afterwards as `readTimestamp`.
    socket.ws.emit('CB:receipt', played);
    socket.emit('message-receipt.update', [{ key: { remoteJid: GROUP_JID, fromMe: true, id: '3EB0AAAA04' }, receipt: { userJid: MEMBER, readTimestamp: T + 70 } }]);
    // A read of another member stays a read.
    socket.emit('message-receipt.update', [{ key: { remoteJid: GROUP_JID, fromMe: true, id: '3EB0AAAA04' }, receipt: { userJid: PEER_JID, readTimestamp: T + 71 } }]);
    await h.settle();
    const group = { type: 'message.status' as const, messageId: '3EB0AAAA04', chatJid: GROUP_JID, recipientId: GROUP_JID };
    assert.deepStrictEqual(h.events, [
      { ...group, participant: MEMBER, status: 'played', timestamp: T + 70 },
      { ...group, participant: PEER_JID, status: 'read', timestamp: T + 71, receipt: true },
    ]);
  });
});
