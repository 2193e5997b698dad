import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requireCapability, type ChannelEventPayload, type StateRepository } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { twoPhones } from './two-phones.js';

const ALICE = '5511900000031';
const BOB = '5511900000032';

/**
 * A phone shows a chat's messages in the order they came. Arriving, a message waits on storage (the
 * session, media, the unread mark), so when the first one's writes are slow the next one — sent as
 * soon as the network took the first, as the outbound queue does — reached bob's server first (CI
 * saw `three` before `one` on PostgreSQL storage, e2e/postgres-queue). Here bob's unread mark of the
 * first message takes 100 ms.
 */
describe('sandbox: messages of a chat arrive in the order they were sent', () => {
  it('emits them in that order even when the first one is slow to store', async () => {
    const storage = new MemoryStorage();
    const bobTexts: string[] = [];
    const phones = await twoPhones([ALICE, BOB], {
      alice: () => {},
      bob: (e: ChannelEventPayload) => {
        if (e.type === 'message' && e.message.content.type === 'text') bobTexts.push(e.message.content.body);
      },
    }, slowFirstUnread(storage, 100));
    try {
      const messaging = requireCapability(phones.alice, 'messaging');
      for (const text of ['one', 'two', 'three']) await messaging.send({ to: BOB, content: { type: 'text', text } });
      for (let i = 0; i < 200 && bobTexts.length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.deepEqual(bobTexts, ['one', 'two', 'three']);
    } finally {
      await phones.stop();
    }
  });
});

/** `storage` whose first write to an unread namespace (a phone's unread mark) resolves `delayMs` late. */
function slowFirstUnread(storage: MemoryStorage, delayMs: number): MemoryStorage {
  const state: StateRepository = storage.state;
  const put = state.put.bind(state);
  let slowed = false;
  state.put = async (namespace, key, value, fence) => {
    if (!slowed && namespace.includes('unread')) {
      slowed = true;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
    return put(namespace, key, value, fence);
  };
  return storage;
}
