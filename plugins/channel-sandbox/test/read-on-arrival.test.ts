import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requireCapability, type ChannelEventPayload } from '@parley/core';
import { twoPhones } from './two-phones.js';

const ALICE = '5511900000021';
const BOB = '5511900000022';

/**
 * The server may read a chat the moment a message's event reaches it (`markMessageRead`: read on
 * arrival). Here the receiving phone's context reads the chat synchronously from `emit`, the
 * earliest the server could: the message must already be known as unread then, or its read receipt
 * is never sent (CI once saw a sender's record stay DELIVERY_ACK this way, under load).
 */
describe('sandbox: a chat read as soon as a message arrives', () => {
  it('sends the read receipt for that message', async () => {
    const aliceEvents: ChannelEventPayload[] = [];
    const reads: Promise<void>[] = [];
    let bobChats: ReturnType<typeof requireCapability<'chats'>> | undefined;
    const phones = await twoPhones([ALICE, BOB], {
      alice: (e) => aliceEvents.push(e),
      bob: (e) => {
        if (e.type === 'message' && !e.message.fromMe) reads.push(bobChats!.markRead(e.message.chatJid, true));
      },
    });
    bobChats = requireCapability(phones.bob, 'chats');
    try {
      const sent = await requireCapability(phones.alice, 'messaging').send({ to: BOB, content: { type: 'text', text: 'hello bob' } });
      for (let i = 0; i < 200 && !aliceEvents.some((e) => e.type === 'message.status' && e.status === 'read'); i++) {
        await Promise.all(reads);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const statuses = aliceEvents.filter((e) => e.type === 'message.status' && e.messageId === sent.key.id).map((e) => (e as { status: string }).status);
      assert.ok(statuses.includes('read'), `alice's message was read on arrival, so a read receipt reaches her (statuses: ${statuses.join(', ')})`);
    } finally {
      await phones.stop();
    }
  });
});
