import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ValidationError, type Storage } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { startHttpReceiver, type HttpReceiver } from '@parley/testkit';
import { createInstance, engineFor, eventually, gate, initialized, textEvent } from './support/harness.js';

const DAY = 24 * 3_600_000;

describe('webhook engine lifecycle and safety (memory storage)', () => {
  let storage: Storage;
  let receiver: HttpReceiver;

  before(async () => {
    storage = await initialized(new MemoryStorage());
    receiver = await startHttpReceiver();
  });

  after(async () => {
    await receiver.close();
    await storage.close();
  });

  it('stop() lets an in-flight delivery finish and acknowledges it', async () => {
    const held = gate();
    receiver.respond(async () => {
      await held.wait;
      return {};
    });
    const engine = engineFor(storage);
    engine.start();
    const instance = await createInstance(storage, { webhookMessage: `${receiver.url}/stop` });
    await engine.handle(textEvent(instance, 1), instance);
    await receiver.waitFor(1);
    const stopped = engine.stop();
    held.open();
    await stopped;
    const { totalSent, totalPending } = await engine.stats(instance.id);
    assert.deepEqual({ totalSent, totalPending }, { totalSent: 1, totalPending: 0 });
    receiver.respond({});
  });

  it('refuses private addresses at send time unless allowPrivateUrls, for literal IPs and resolved names', async () => {
    const engine = engineFor(storage, { retry: { schedule: [] } }, { allowPrivateUrls: false });
    engine.start();
    try {
      const before = receiver.requests.length;
      const literal = await createInstance(storage, { webhookMessage: `${receiver.url}/private` });
      const named = await createInstance(storage, { webhookMessage: `http://localhost:${receiver.port}/private` });
      await engine.handle(textEvent(literal, 1), literal);
      await engine.handle(textEvent(named, 1), named);
      const [a, b] = await Promise.all([literal, named].map((instance) =>
        eventually(() => engine.deadLetters(instance.id, { limit: 10, offset: 0 }), (page) => page.total === 1)));
      assert.equal(a!.items[0]!.lastError, '127.0.0.1 is a private address (set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)');
      assert.match(b!.items[0]!.lastError!, /^localhost resolves to a private address \((127\.0\.0\.1|::1)\)$/);
      assert.equal(receiver.requests.length, before, 'the receiver was reached');
      // IPv6 literals that carry a loopback IPv4 address (mapped, compatible, SIIT, 6to4, NAT64): refused when dialled.
      const embedded: Record<string, string> = {
        '[::ffff:127.0.0.1]': '::ffff:7f00:1', '[::127.0.0.1]': '::7f00:1', '[::ffff:0:127.0.0.1]': '::ffff:0:7f00:1',
        '[2002:7f00:1::]': '2002:7f00:1::', '[64:ff9b::127.0.0.1]': '64:ff9b::7f00:1',
      };
      for (const [host, address] of Object.entries(embedded)) {
        const instance = await createInstance(storage, { webhookMessage: `http://${host}:${receiver.port}/private` });
        await engine.handle(textEvent(instance, 1), instance);
        const page = await eventually(() => engine.deadLetters(instance.id, { limit: 10, offset: 0 }), (p) => p.total === 1);
        assert.equal(page!.items[0]!.lastError, `${address} is a private address (set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs)`, host);
      }
      assert.equal(receiver.requests.length, before, 'the receiver was reached');
    } finally {
      await engine.stop();
    }
    const allowed = engineFor(storage, {}, { allowPrivateUrls: true });
    allowed.start();
    try {
      const instance = await createInstance(storage, { webhookMessage: `http://localhost:${receiver.port}/private` });
      await allowed.handle(textEvent(instance, 1), instance);
      await eventually(() => allowed.stats(instance.id), (s) => s.totalSent === 1);
    } finally {
      await allowed.stop();
    }
  });

  it('fills option defaults and refuses invalid options at construction', () => {
    assert.throws(() => engineFor(storage, { timeoutMs: 5_000, leaseMs: 5_500 }), (error: unknown) => error instanceof ValidationError && /leaseMs/.test(error.message));
  });

  it('validateSettings checks URLs, the private-network guard, the format and allowNumber, naming the field', async () => {
    const strict = engineFor(storage, {}, { allowPrivateUrls: false });
    const open = engineFor(storage, {}, { allowPrivateUrls: true });
    const refuses = async (engine: typeof strict, patch: object, message: RegExp) => {
      await assert.rejects(engine.validateSettings(patch), (error: unknown) => error instanceof ValidationError && message.test(error.message));
    };
    await refuses(strict, { webhookMessage: 'http://127.0.0.1:8080/hook' }, /^webhookMessage points to a private network address \(set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs\)$/);
    await refuses(strict, { webhookGroup: 'http://localhost/hook' }, /^webhookGroup points to a private network host \(set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs\)$/);
    await refuses(strict, { webhookConnection: 'http://[::1]/hook' }, /^webhookConnection points to a private network address \(set PARLEY_ALLOW_PRIVATE_URLS=1 to allow private network URLs\)$/);
    await refuses(strict, { webhookQrCode: 'ftp://93.184.216.34/hook' }, /^webhookQrCode must use http, https$/);
    await refuses(strict, { webhookHistory: 'not a url' }, /^webhookHistory must be an absolute URL$/);
    await refuses(strict, { webhookFormat: 'xml' as never }, /^webhookFormat must be one of native, meta, both$/);
    await refuses(strict, { allowNumber: '55-11' }, /^allowNumber must be/);
    await refuses(strict, { allowWebhook: 'yes' as never }, /^allowWebhook must be a boolean$/);
    await strict.validateSettings({
      allowWebhook: true, allowNumber: '5511988887777', webhookFormat: 'both', webhookMessage: 'https://93.184.216.34/hook', webhookGroup: '',
    });
    await open.validateSettings({ webhookMessage: 'http://127.0.0.1:8080/hook', webhookMessageFromMe: 'http://localhost/hook' });
  });

  it('dead letters expire after the retention, on the cron schedule', async () => {
    let offset = 0;
    const clock = { now: () => Date.now() + offset };
    const engine = engineFor(storage, { retry: { schedule: [] }, housekeeping: { purgeCron: '* * * * * *', deadLetterRetentionMs: 7 * DAY } }, { clock });
    receiver.respond({ status: 500 });
    engine.start();
    try {
      const instance = await createInstance(storage, { webhookMessage: `${receiver.url}/expire` });
      await engine.handle(textEvent(instance, 1), instance);
      await eventually(() => engine.deadLetters(instance.id, { limit: 10, offset: 0 }), (page) => page.total === 1);
      assert.equal(await engine.purgeExpiredDeadLetters(), 0);
      offset = 7 * DAY + 1_000;
      await eventually(() => engine.deadLetters(instance.id, { limit: 10, offset: 0 }), (page) => page.total === 0, 5_000);
    } finally {
      await engine.stop();
      receiver.respond({});
    }
  });
});
