import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { ChannelEvent } from '@parley/core';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { delivered, nativeWebhooks, useWebhookReceivers } from '../support/simulated-webhooks.js';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

type ConnectionEvent = Extract<ChannelEvent, { type: 'connection' }>;

/** The channel's own reconnect policy, shortened: 100 ms doubling up to 400 ms, no jitter (options.ts `reconnect`). */
const RECONNECT = { baseDelayMs: 100, maxDelayMs: 400, jitter: 0 };
/** More failed attempts than the old limit (10), after which an instance stopped for good. */
const ATTEMPTS = 14;

/**
 * Issue 25 defect 4 on the simulator: a linked instance survives an outage longer than the ten reconnect
 * attempts that used to stop it for good. The simulator refuses every connection (its port is closed)
 * while Parley's WhatsApp channel tries again and again at the capped delay; once the outage ends the
 * instance opens by itself, a phone's message arrives, and `wantsConnection` never went false.
 */
describe('a refuse outage longer than ten reconnect attempts: the instance keeps trying and opens by itself', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  const hooks = useWebhookReceivers();
  const env = useSimulatedWhatsApp({}, { reconnect: RECONNECT });
  before(() => {
    ({ sim, t } = env);
  });
  const shop = '5511987659811';
  const friend = '5511987659812';
  const path = 'long-outage';

  it(`${ATTEMPTS}+ refused attempts, then open, a phone's message delivered, wantsConnection true throughout`, { timeout: 120_000 }, async () => {
    const { api } = await env.shopWithFriend(shop, friend, path);
    await nativeWebhooks(api, hooks.receivers(), path);
    const { id } = (await api.call('getInstance')).instance as { id: string };
    const connections = () => t.events.filter((e): e is ConnectionEvent & { instance: string } => e.type === 'connection' && (e as { instance?: string }).instance === id);
    const wantsConnection = async () => (await t.server.context.storage.instances.get(id))?.wantsConnection;
    const before = connections().length;

    await sim.simulator.startOutage('refuse');
    try {
      // Each refused attempt leaves its own lastError (its `at`); the distinct ones seen are a lower bound
      // of the attempts made, so a slow machine only makes this wait longer.
      const seen = new Set<number>();
      await t.waitFor(async () => {
        const { connection } = (await api.call('getInstance')).instance;
        assert.notEqual(connection?.status, 'stopped', `stopped after ${seen.size} attempts: ${JSON.stringify(connection?.failure)}`);
        if (connection?.lastError?.cause === 'refused') seen.add(connection.lastError.at);
        return seen.size >= ATTEMPTS;
      }, 60_000, `${ATTEMPTS} refused reconnect attempts`);
      const { instance } = await api.call('getInstance');
      assert.equal(instance.connection?.status, 'connecting');
      assert.equal(instance.connection?.failure, undefined);
      assert.equal(await wantsConnection(), true, 'still wanted connected during the outage');
    } finally {
      await sim.simulator.endOutage();
    }

    await t.waitFor(async () => (await api.call('getInstance')).instance.connection?.status === 'open', 30_000, 'the reconnection after the outage');
    assert.deepEqual(connections().slice(before).map((e) => [e.status, e.status === 'close' ? e.willReconnect : undefined]), [['close', true], ['open', undefined]],
      'one close (the outage) and one open: refused attempts are no events');
    assert.equal(await wantsConnection(), true);
    const sent = await sim.simulator.sendText(friend, shop, 'de volta depois do apagão');
    await delivered(t, hooks.receivers(), 'webhookMessage', path, (b) => b.type === 'message' && b.data.message.id === sent.id, 'the phone\'s message after the outage');
  });
});
