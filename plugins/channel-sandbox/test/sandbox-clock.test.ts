import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  defaultInstanceFlags, defaultWebhookSettings, type ChannelContext, type ChannelEventPayload, type InstanceRecord, type Logger,
} from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { FakeClock } from '@parley/testkit';
import { SandboxDriver } from '../src/sandbox.driver.js';
import { defaultSandboxOptions } from '../src/sandbox.options.js';

const silent: Logger = { child: () => silent, trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} };

function record(id: string, number: string): InstanceRecord {
  return {
    id, key: `key-${id}`, name: number, driver: 'sandbox', createdAt: 0, flags: defaultInstanceFlags(), webhook: defaultWebhookSettings(),
    webhookSecret: 'whsec_test', user: null, phoneConnected: false, wantsConnection: false, health: 'healthy', driverOptions: { number }, links: {},
  };
}

describe('the sandbox takes its time from the server clock', () => {
  it('send, delivery receipt and the received message are stamped with the clock\'s time, not the machine\'s', async () => {
    const clock = new FakeClock();
    const storage = new MemoryStorage();
    await storage.init();
    const driver = new SandboxDriver({ options: { ...defaultSandboxOptions, latencyMs: 0 }, host: { dataDir: '', publicUrl: 'http://127.0.0.1', allowPrivateUrls: false }, logger: silent, clock });
    const events: Record<string, ChannelEventPayload[]> = { alice: [], bob: [] };
    const adapters = [];
    for (const [name, number, id] of [['alice', '5511900000001', 'ins_01JD7Q4X9M2K8V3T6R5P0N1C01'], ['bob', '5511900000002', 'ins_01JD7Q4X9M2K8V3T6R5P0N1C02']] as const) {
      const r = record(id, number);
      await storage.instances.create(r);
      const context: ChannelContext = { instanceId: id, instance: async () => (await storage.instances.get(id))!, emit: (e) => void events[name]!.push(e), storage, logger: silent };
      const adapter = await driver.create(context);
      await adapter.connection.connect();
      await adapter.connection.scan();
      adapters.push(adapter);
    }
    const seconds = Math.floor(FakeClock.START / 1000);
    const sent = await adapters[0]!.capabilities.messaging!.send({ to: '5511900000002', content: { type: 'text', text: 'hi' } });
    assert.equal(sent.messageTimestamp, String(seconds));
    const delivered = (e: ChannelEventPayload): e is Extract<ChannelEventPayload, { type: 'message.status' }> => e.type === 'message.status' && e.status === 'delivered';
    const arrived = () => events.bob!.some((e) => e.type === 'message') && events.alice!.some(delivered);
    for (let i = 0; i < 5000 && !arrived(); i++) await new Promise((resolve) => setTimeout(resolve, 1));
    const received = events.bob!.find((e): e is Extract<ChannelEventPayload, { type: 'message' }> => e.type === 'message');
    assert.equal(received?.message.timestamp, seconds);
    const receipt = events.alice!.find(delivered);
    assert.deepEqual([receipt?.status, receipt?.timestamp], ['delivered', seconds]);
    for (const adapter of adapters) await adapter.stop();
  });
});
