import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requireCapability, type ChannelContext, type ChannelEventPayload, type Logger } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { FakeClock } from '@parley/testkit';
import { SandboxDriver } from '../src/sandbox.driver.js';
import { defaultSandboxOptions } from '../src/sandbox.options.js';
import { sandboxInstance } from './conformance-far-side.js';

const silent: Logger = { child: () => silent, trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} };
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
    const storage = new MemoryStorage();
    await storage.init();
    const driver = new SandboxDriver({
      options: { ...defaultSandboxOptions, latencyMs: 0 }, host: { dataDir: '', publicUrl: 'http://127.0.0.1', allowPrivateUrls: false }, logger: silent, clock: new FakeClock(),
    });
    const aliceEvents: ChannelEventPayload[] = [];
    const reads: Promise<void>[] = [];
    let bobChats: ReturnType<typeof requireCapability<'chats'>> | undefined;
    const context = (id: string, emit: (event: ChannelEventPayload) => void): ChannelContext => ({
      instanceId: id, instance: async () => (await storage.instances.get(id))!, emit, storage, logger: silent,
    });
    for (const [id, number] of [['ins_alice', ALICE], ['ins_bob', BOB]] as const) await storage.instances.create(sandboxInstance(id, number));
    const alice = await driver.create(context('ins_alice', (e) => aliceEvents.push(e)));
    const bob = await driver.create(context('ins_bob', (e) => {
      if (e.type === 'message' && !e.message.fromMe) reads.push(bobChats!.markRead(e.message.chatJid, true));
    }));
    bobChats = requireCapability(bob, 'chats');
    for (const adapter of [alice, bob]) {
      await requireCapability(adapter, 'connection').connect();
      await (adapter as unknown as { connection: { scan(): Promise<unknown> } }).connection.scan();
    }
    try {
      const sent = await requireCapability(alice, 'messaging').send({ to: BOB, content: { type: 'text', text: 'hello bob' } });
      for (let i = 0; i < 200 && !aliceEvents.some((e) => e.type === 'message.status' && e.status === 'read'); i++) {
        await Promise.all(reads);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const statuses = aliceEvents.filter((e) => e.type === 'message.status' && e.messageId === sent.key.id).map((e) => (e as { status: string }).status);
      assert.ok(statuses.includes('read'), `alice's message was read on arrival, so a read receipt reaches her (statuses: ${statuses.join(', ')})`);
    } finally {
      await alice.stop();
      await bob.stop();
    }
  });
});
