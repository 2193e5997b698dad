import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Logger } from '@parley/core';
import { registerPlugin } from '@parley/testkit';
import plugin, { baileysOptionsSchema, createBaileysDriver, resolveOptions } from '../src/index.js';
import { nextAttempt, reconnectDelay } from '../src/connection/backoff.js';
import { Ajv } from 'ajv';
import { createHarness, ME, quietLogger } from './harness.js';

describe('plugin and driver', () => {
  it('the manifest declares and registers a main-channel driver named whatsapp, with phone-number addressing', async () => {
    assert.deepStrictEqual([plugin.name, plugin.kind, plugin.coreVersion], ['@parley/channel-baileys', 'channel', '^0.1.0']);
    assert.deepStrictEqual(plugin.provides, { channels: ['whatsapp'] });
    const registered = await registerPlugin(plugin, {}, { logger: quietLogger(), host: { dataDir: '/tmp' } });
    assert.deepStrictEqual(registered.channels.map((d) => [d.name, d.channel, d.role, d.addressing.phoneNumbers]), [['whatsapp', 'whatsapp', 'main', true]]);
  });

  it('creating an adapter does no I/O: no socket before connect', async () => {
    const h = await createHarness();
    assert.equal(h.sockets.all.length, 0);
    assert.deepStrictEqual(h.adapter.capabilities.connection!.state(), { phoneConnected: false, user: null, status: 'disconnected' });
    assert.equal(h.adapter.channel, 'whatsapp');
    await h.adapter.stop();
  });

  it('options get their defaults; reconnect.maxAttempts of older configurations is dropped with a warning', () => {
    assert.deepStrictEqual(resolveOptions({ reconnect: { maxAttempts: 3 }, keyCacheSize: 10 }), {
      reconnect: { baseDelayMs: 2000, maxDelayMs: 120_000, jitter: 0.2 }, keyCacheSize: 10, groupCacheSize: 500,
      browserName: 'Parley', markOnlineOnConnect: false, syncFullHistory: false, connectTimeoutMs: 20_000, keepAliveIntervalMs: 30_000, undecryptableGraceMs: 30_000, qrWaitMs: 10_000, logLevel: 'warn',
      health: { failedSendThreshold: 3, failedSendWindowMs: 600_000 },
    });
    assert.equal(typeof createBaileysDriver().create, 'function');
    const warnings: unknown[] = [];
    const logger = { warn: (...args: unknown[]) => warnings.push(args) } as unknown as Logger;
    createBaileysDriver({ options: { reconnect: { maxAttempts: 3 } }, logger });
    createBaileysDriver({ options: { reconnect: { baseDelayMs: 5 } }, logger });
    assert.equal(warnings.length, 1);
  });

  it('qrTimeoutMs sets each QR code\'s life on the socket (Baileys\' qrTimeout); absent, Baileys keeps its own 60 s then 20 s', async () => {
    const validate = new Ajv().compile(baileysOptionsSchema);
    assert.deepStrictEqual([30_000, 1_000, 999, 600_001, '30000'].map((qrTimeoutMs) => validate({ qrTimeoutMs })), [true, true, false, false, false]);
    for (const [options, expected] of [[{ qrTimeoutMs: 30_000 }, 30_000], [{}, undefined]] as const) {
      const h = await createHarness({ options });
      const connecting = h.adapter.capabilities.connection!.connect();
      const socket = await h.sockets.next(1);
      assert.equal(socket.config.qrTimeout, expected);
      socket.open(ME);
      await connecting;
      await h.adapter.stop();
    }
  });

  it('backoff doubles from the base, is capped, and jitter only shortens it', () => {
    const policy = { baseDelayMs: 1000, maxDelayMs: 10_000, jitter: 0.2 };
    assert.deepStrictEqual([1, 2, 3, 4, 5, 6].map((n) => reconnectDelay(policy, n, () => 0)), [1000, 2000, 4000, 8000, 10_000, 10_000]);
    assert.deepStrictEqual([1, 5].map((n) => reconnectDelay(policy, n, () => 0.999999)), [800, 8000]);
  });

  it('a rate-limited close (429) backs off five steps further at once; other closes one step', () => {
    assert.deepStrictEqual([[0, 428], [3, 503], [0, 429], [2, 429], [7, 429]].map(([attempts, code]) => nextAttempt(attempts!, code!)), [1, 4, 6, 6, 8]);
  });
});
