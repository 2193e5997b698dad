import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { ChannelEvent } from '@parley/core';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { at } from '../support/webhook-receivers.js';
import { delivered, deliveredMeta, nativeWebhooks, useWebhookReceivers, type NativeBody } from '../support/simulated-webhooks.js';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

type ConnectionEvent = Extract<ChannelEvent, { type: 'connection' }>;

/** A short reconnect policy: a reconnection loop, if there were one, would show many logins within the wait below. */
const RECONNECT = { baseDelayMs: 100, maxDelayMs: 500, jitter: 0 };

/**
 * WhatsApp's closes no retry can fix that are not stream errors (docs/rest-api.md "Instance connection",
 * issue 25): 403 forbidden (`<failure reason="403">`, a banned or blocked number) and 411 multi-device
 * mismatch (`<ib><downgrade_webclient/>`), sent by the simulator as WhatsApp sends them, through Parley's
 * channel on the unmodified Baileys: one connection close webhook {code, reason, willReconnect false,
 * loggedOut false}, no reconnection, `stopped` with the failure, the wish to be connected cleared (a
 * restart does not connect it again), the session kept (an explicit connect logs in without a QR code).
 */
describe('WhatsApp 403 and 411 closes from the simulator: Parley stops, reports once, keeps the session', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  const hooks = useWebhookReceivers();
  const env = useSimulatedWhatsApp({}, { reconnect: RECONNECT });
  before(() => {
    ({ sim, t } = env);
  });

  for (const [code, reason, n] of [[403, 'forbidden', 1], [411, 'multideviceMismatch', 2]] as const) {
    it(`${code} ${reason}: one close webhook, stopped, no reconnection, wantsConnection false, a later connect logs in without a QR code`, { timeout: 90_000 }, async () => {
      const account = sim.simulator.createAccount({ number: `551198765970${n}` });
      const path = `closes-${code}`;
      const { api } = await env.linkByQr(account.number, path, (instance) => nativeWebhooks(instance, hooks.receivers(), path, 'both'));
      const { id } = (await api.call('getInstance')).instance as { id: string };
      const device = () => sim.simulator.getAccount(account.number).devices[0]!;
      const sentStanzas = () => sim.simulator.stanzas(account.number).length;
      const events = () => t.events.filter((e): e is ConnectionEvent & { instance: string } => e.type === 'connection' && (e as { instance?: string }).instance === id);
      const before = events().length;

      sim.simulator.closeClient(device().jid, code);
      const close = await delivered(t, hooks.receivers(), 'webhookConnection', path, (b) => b.type === 'connection' && b.data.status === 'close', `the ${code} close webhook`);
      assert.deepEqual([close.data.code, close.data.reason, close.data.willReconnect, close.data.loggedOut], [code, reason, false, false]);
      // Far longer than the whole reconnect policy (100 ms, capped at 500 ms): a loop would have logged in again.
      const stanzasBefore = sentStanzas();
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      assert.equal(device().online, false, 'no reconnection');
      assert.equal(sentStanzas(), stanzasBefore, 'the device sent nothing after the close');
      assert.deepEqual(events().slice(before).map((e) => [e.status, e.status === 'close' ? e.code : 200]), [['close', code]], 'one connection event');
      const closes = at(hooks.receivers().webhookConnection, path).map((r) => r.json as NativeBody).filter((b) => b.type === 'connection' && b.data.status === 'close');
      assert.equal(closes.length, 1, 'one close webhook');

      const { instance } = await api.call('getInstance');
      assert.equal(instance.phoneConnected, false);
      assert.equal(instance.connection?.status, 'stopped');
      assert.deepEqual([instance.connection?.failure?.code, instance.connection?.failure?.reason], [code, reason]);
      const record = await t.server.context.storage.instances.get(id);
      assert.equal(record?.wantsConnection, false, 'a restarted server would not connect it again');

      if (code === 403) {
        const health = await delivered(t, hooks.receivers(), 'webhookMessage', path, (b) => b.type === 'health' && b.data.status === 'restricted', 'the restricted health webhook');
        assert.deepEqual([health.data.shouldRotate, health.data.shouldPause], [true, true]);
        assert.equal(instance.health, 'restricted');
        // Spec 6.3 `health` in the meta format: field health, {status, previous, reason, should_pause, should_rotate}.
        const meta = await deliveredMeta(t, hooks.receivers(), 'webhookMessage', path, (c) => c.field === 'health' && c.value.health.status === 'restricted', 'the meta health webhook');
        assert.deepEqual(meta.value.health, { status: 'restricted', previous: 'healthy', reason: health.data.reason, should_pause: true, should_rotate: true });
      }

      // The session was kept: an explicit connect logs in with it (no QR code) and the number is usable again.
      const again = await api.call('connectInstance');
      assert.equal(again.qrcode ?? '', '', 'no QR code');
      await t.waitFor(async () => (await api.call('getInstance')).instance.phoneConnected, 20_000, 'the explicit reconnection');
      assert.equal((await t.server.context.storage.instances.get(id))?.wantsConnection, true);
      if (code === 403) {
        await delivered(t, hooks.receivers(), 'webhookMessage', path, (b) => b.type === 'health' && b.data.status === 'healthy', 'the lifted restriction');
      }
    });
  }
});
