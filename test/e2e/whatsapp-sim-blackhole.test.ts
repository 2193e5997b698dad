import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { ParleyApiError } from '@parley/client';
import type { ChannelEvent } from '@parley/core';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { at } from '../support/webhook-receivers.js';
import { delivered, nativeWebhooks, useWebhookReceivers, type NativeBody } from '../support/simulated-webhooks.js';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

type ConnectionEvent = Extract<ChannelEvent, { type: 'connection' }>;

/**
 * A blackhole outage through Parley (issue 25): the simulator drops every packet of the live socket and of
 * new connections silently (no FIN, no RST), so only Baileys' keep-alive notices — here after 1 s + 5 s
 * (`keepAliveIntervalMs` 1000; the real default, 30 s, notices after 35 to 65 s). Meanwhile the phone's
 * messages wait on the server (offline queue) and arrive once the outage ends; Parley's sends are answered
 * as docs/queue.md and docs/rest-api.md say and reach the phone after it: nothing lost, nothing twice.
 */
describe('a blackhole outage through Parley: keep-alive notices, the offline queue and queued sends deliver once', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  const hooks = useWebhookReceivers();
  const env = useSimulatedWhatsApp({}, { keepAliveIntervalMs: 1_000, connectTimeoutMs: 2_000, reconnect: { baseDelayMs: 200, maxDelayMs: 1_000, jitter: 0 } });
  before(() => {
    ({ sim, t } = env);
  });
  const shop = '5511987659801';
  const friend = '5511987659802';
  const path = 'blackhole';

  it('the instance goes connecting, and every message of both sides arrives exactly once after the outage', { timeout: 120_000 }, async () => {
    const { api } = await env.shopWithFriend(shop, friend, path);
    await nativeWebhooks(api, hooks.receivers(), path);
    const { id } = (await api.call('getInstance')).instance as { id: string };
    const connections = () => t.events.filter((e): e is ConnectionEvent & { instance: string } => e.type === 'connection' && (e as { instance?: string }).instance === id);
    const before = connections().length;
    const status = async () => (await api.call('getInstance')).instance.connection;
    // A first send looks the friend's number up (and its devices); a lookup during the outage would wait for Baileys' 60 s query time-out.
    const hello = await api.call('sendText', { body: { to: friend, text: 'olá' } });
    await t.waitFor(() => sim.simulator.received(friend).some((m) => m.id === hello.data.key.id), 20_000, 'the first send');

    await sim.simulator.startOutage('blackhole');
    try {
      // Before the keep-alive notices, the connection still looks open: the send is taken and goes into the void.
      assert.equal((await status())?.status, 'open');
      const intoTheVoid = await api.call('sendText', { body: { to: friend, text: 'enviada no apagão' } });
      // Accepted now and due while the instance reconnects: the queue tries it again until it is connected.
      const queued = await api.call('sendText', { body: { to: friend, text: 'na fila', delay: 3_000 } });
      assert.equal(queued.data.status, 'PENDING');
      const early = await sim.simulator.sendText(friend, shop, 'do telefone, no começo do apagão');

      const noticed = Date.now();
      await t.waitFor(async () => (await status())?.status === 'connecting', 20_000, 'the keep-alive to notice the dead link');
      // Noticed by the keep-alive (1 s interval + 5 s of silence), not by any FIN or RST.
      assert.ok(Date.now() - noticed >= 4_000, `noticed after ${Date.now() - noticed} ms`);
      assert.deepEqual(connections().slice(before).map((e) => [e.status, e.status === 'close' ? [e.code, e.willReconnect] : undefined]), [['close', [408, true]]]);

      // While connecting, a new send is refused (409 not_connected) and nothing is kept (docs/rest-api.md, Instance connection).
      await assert.rejects(api.call('sendText', { body: { to: friend, text: 'recusada' } }), (error: unknown) => error instanceof ParleyApiError && error.status === 409 && error.code === 'not_connected');
      const late = await sim.simulator.sendText(friend, shop, 'do telefone, durante a reconexão');
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      assert.deepEqual(sim.simulator.received(friend).map((m) => m.text), ['olá'], 'nothing reached the phone during the outage');
      assert.equal(messageWebhooks(early.id).length + messageWebhooks(late.id).length, 0, 'nothing reached Parley during the outage');

      await sim.simulator.endOutage();
      await t.waitFor(async () => (await status())?.status === 'open', 30_000, 'the reconnection after the outage');
      const phoneGot = (text: string) => sim.simulator.received(friend).filter((m) => m.text === text);
      await t.waitFor(() => phoneGot('na fila').length > 0, 30_000, 'the queued send to reach the phone');
      await t.waitFor(() => phoneGot('enviada no apagão').length > 0, 30_000, 'the send made into the outage to reach the phone');
      for (const sent of [early, late]) await delivered(t, hooks.receivers(), 'webhookMessage', path, (b) => b.type === 'message' && b.data.message.id === sent.id, 'the phone\'s message');
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      assert.deepEqual(['enviada no apagão', 'na fila', 'recusada'].map((text) => phoneGot(text).length), [1, 1, 0], 'each accepted send once, the refused one never');
      assert.equal(phoneGot('enviada no apagão')[0]!.id, intoTheVoid.data.key.id, 'under the id Parley answered');
      assert.deepEqual([messageWebhooks(early.id).length, messageWebhooks(late.id).length], [1, 1], 'each phone message once');
      const stored = await api.call('listChatMessages', { params: { jid: `${friend}@s.whatsapp.net` } });
      for (const sent of [early, late]) assert.equal(stored.data.filter((m) => m.key.id === sent.id).length, 1);
    } finally {
      await sim.simulator.endOutage();
    }
  });

  function messageWebhooks(id: string): NativeBody[] {
    return at(hooks.receivers().webhookMessage, path).map((r) => r.json as NativeBody).filter((b) => b.type === 'message' && b.data.message.id === id);
  }
});
