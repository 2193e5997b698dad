import { requireCapability, silentLogger as silent, type ChannelAdapter, type ChannelContext, type ChannelEventPayload, type Storage } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { FakeClock } from '@parley/testkit';
import { SandboxDriver } from '../src/sandbox.driver.js';
import { defaultSandboxOptions } from '../src/sandbox.options.js';
import { sandboxInstance } from './conformance-far-side.js';

/** Two linked sandbox phones on one network and one storage, without a server: each context's `emit` is the test's. */
export interface TwoPhones {
  alice: ChannelAdapter;
  bob: ChannelAdapter;
  stop(): Promise<void>;
}

/**
 * Links alice (`numbers[0]`) and bob (`numbers[1]`) on a network without latency, over `storage`
 * (a fresh MemoryStorage by default); `emit` receives each phone's events as its server would.
 */
export async function twoPhones(
  numbers: readonly [string, string],
  emit: { alice(event: ChannelEventPayload): void; bob(event: ChannelEventPayload): void },
  storage: Storage = new MemoryStorage(),
): Promise<TwoPhones> {
  await storage.init();
  const driver = new SandboxDriver({
    options: { ...defaultSandboxOptions, latencyMs: 0 }, host: { dataDir: '', publicUrl: 'http://127.0.0.1', allowPrivateUrls: false }, logger: silent, clock: new FakeClock(),
  });
  const context = (id: string, onEvent: (event: ChannelEventPayload) => void): ChannelContext => ({
    instanceId: id, instance: async () => (await storage.instances.get(id))!, emit: onEvent, storage, logger: silent,
  });
  await storage.instances.create(sandboxInstance('ins_alice', numbers[0]));
  await storage.instances.create(sandboxInstance('ins_bob', numbers[1]));
  const alice = await driver.create(context('ins_alice', (e) => emit.alice(e)));
  const bob = await driver.create(context('ins_bob', (e) => emit.bob(e)));
  for (const adapter of [alice, bob]) {
    await requireCapability(adapter, 'connection').connect();
    await (adapter as unknown as { connection: { scan(): Promise<unknown> } }).connection.scan();
  }
  return {
    alice, bob,
    async stop() {
      await alice.stop();
      await bob.stop();
    },
  };
}
