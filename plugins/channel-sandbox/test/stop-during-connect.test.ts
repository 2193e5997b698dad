import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  defaultInstanceFlags, defaultWebhookSettings, type ChannelContext, type InstanceRecord, type Logger,
} from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { FakeClock } from '@parley/testkit';
import { sandboxLinks } from '../src/sandbox-links.js';
import { SandboxDriver } from '../src/sandbox.driver.js';
import { defaultSandboxOptions } from '../src/sandbox.options.js';

const silent: Logger = { child: () => silent, trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} };
const NUMBER = '5511900000011';
const ID = 'ins_01JD7Q4X9M2K8V3T6R5P0N1S01';

/** Storage whose state calls matching `hangs` wait until `release()` (a partition: calls neither answer nor fail). */
function hangingStorage(hangs: (call: 'put' | 'list' | 'get', namespace: string) => boolean) {
  const storage = new MemoryStorage();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let hung = 0;
  const { state } = storage;
  const put = state.put.bind(state);
  const list = state.list.bind(state);
  const get = state.get.bind(state);
  state.get = (async (namespace: string, id: string) => {
    if (hangs('get', namespace)) {
      hung++;
      await gate;
    }
    return get(namespace, id);
  }) as typeof state.get;
  state.put = (async (namespace: string, id: string, value: unknown) => {
    if (hangs('put', namespace)) {
      hung++;
      await gate;
    }
    return put(namespace, id, value);
  }) as typeof state.put;
  state.list = (async (namespace: string) => {
    if (hangs('list', namespace)) {
      hung++;
      await gate;
    }
    return list(namespace);
  }) as typeof state.list;
  return { storage, release, hung: () => hung };
}

async function linkedAdapter(storage: MemoryStorage, options: Partial<typeof defaultSandboxOptions> = {}, linked = true, logger: Logger = silent) {
  await storage.init();
  const record: InstanceRecord = {
    id: ID, key: 'key', name: NUMBER, driver: 'sandbox', createdAt: 0, flags: defaultInstanceFlags(), webhook: defaultWebhookSettings(),
    webhookSecret: 'whsec_test', user: null, phoneConnected: false, wantsConnection: true, health: 'healthy', driverOptions: { number: NUMBER }, links: {},
  };
  await storage.instances.create(record);
  const driver = new SandboxDriver({
    options: { ...defaultSandboxOptions, latencyMs: 0, ...options }, host: { dataDir: '', publicUrl: 'http://127.0.0.1', allowPrivateUrls: false }, logger, clock: new FakeClock(),
  });
  const context: ChannelContext = { instanceId: ID, instance: async () => (await storage.instances.get(ID))!, emit: () => undefined, storage, logger: silent };
  if (linked) {
    const first = await driver.create(context);
    await first.connection.connect();
    await first.connection.scan();
    await first.stop();
  }
  // A new adapter (a node taking the instance): its connect reads the stored session, and goes online with a linked one.
  return { adapter: await driver.create(context), driver };
}

async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(done(), what);
}

/**
 * A cluster node stops an instance at its lease deadline while the instance's connect may hang on a
 * storage that stopped answering: the stop must not wait for that connect, and the connect must then
 * leave the phone offline, its link recorded closed (ChannelAdapter.stop).
 */
describe('sandbox: stopped while a connect is under way', () => {
  for (const [where, hangs] of [
    ['the link being recorded', (call: string, ns: string) => call === 'put' && ns.startsWith('sandbox:links:')],
    ['the inbox being read', (call: string, ns: string) => call === 'list' && ns.endsWith(':inbox')],
  ] as const) {
    it(`while ${where}: the stop does not wait, and the phone never stays online`, async () => {
      let hanging = false;
      const { storage, release, hung } = hangingStorage((call, ns) => hanging && hangs(call, ns));
      const { adapter } = await linkedAdapter(storage);
      hanging = true;
      const connecting = adapter.connection.connect();
      await until(() => hung() > 0, 'the connect reached the hanging call');
      let stopped = false;
      const stop = adapter.stop().then(() => (stopped = true));
      await until(() => stopped, 'the stop resolved while the connect still hangs');
      hanging = false;
      release();
      await connecting.catch(() => undefined);
      await stop;
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal(adapter.connection.state().phoneConnected, false);
      const links = await sandboxLinks(storage, NUMBER);
      assert.deepEqual(links.filter((l) => l.closedAt === undefined), [], 'every link of the phone is closed');
    });
  }

  it('while the session is being read: no QR code and no pairing timer outlive the stop (an auto-scan would link the phone)', async () => {
    let hanging = false;
    const { storage, release, hung } = hangingStorage((call) => hanging && call === 'get');
    const { adapter } = await linkedAdapter(storage, { autoScanMs: 20 }, false);
    hanging = true;
    const connecting = adapter.connection.connect();
    await until(() => hung() > 0, 'the connect reads the session');
    await adapter.stop();
    hanging = false;
    release();
    const answer = await connecting;
    assert.deepEqual([answer.phoneConnected, answer.qrcode], [false, '']);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(adapter.connection.state().status, 'disconnected', 'no QR shown, nothing linked by an auto-scan');
    assert.deepEqual((await sandboxLinks(storage, NUMBER)).filter((l) => l.closedAt === undefined), []);
  });
});

/** A logger that keeps the messages of its warnings and errors. */
function recording(): { logger: Logger; errors: string[] } {
  const errors: string[] = [];
  const logger: Logger = { ...silent, child: () => logger, error: (_: unknown, msg?: string) => void errors.push(String(msg)) };
  return { logger, errors };
}

/** Close records of the phone's links fail (`'fail'`), hang until `release()` (`'hang'`: a blackholed store) or pass. */
function closeWrites(storage: MemoryStorage) {
  const { state } = storage;
  const put = state.put.bind(state);
  const control = { mode: 'pass' as 'pass' | 'fail' | 'hang', attempts: 0, release: () => undefined as void };
  const gate = new Promise<void>((resolve) => (control.release = resolve));
  state.put = (async (namespace: string, id: string, value: unknown) => {
    if (namespace.startsWith('sandbox:links:') && (value as { closedAt?: number }).closedAt !== undefined) {
      control.attempts++;
      if (control.mode === 'fail') throw new Error('storage unavailable');
      if (control.mode === 'hang') await gate;
    }
    return put(namespace, id, value);
  }) as typeof state.put;
  return control;
}

const openLinks = async (storage: MemoryStorage) => (await sandboxLinks(storage, NUMBER)).filter((l) => l.closedAt === undefined);

/**
 * A graceful stop whose first write of a link's close failed (storage briefly unavailable) retries it
 * after a pause; the server then closes its drivers and its storage and exits. The driver's close
 * waits for those records — the retry made at once — but no longer than the stop's time, and not
 * past one more failure: the stop keeps its bound with a store that does not answer.
 */
describe('sandbox: driver close at shutdown', () => {
  async function stoppedWithCloseFailing(logger?: Logger) {
    const storage = new MemoryStorage();
    const { adapter, driver } = await linkedAdapter(storage, {}, true, logger);
    await adapter.connection.connect();
    assert.equal(adapter.connection.state().phoneConnected, true);
    const writes = closeWrites(storage);
    writes.mode = 'fail';
    await adapter.stop();
    assert.equal(writes.attempts, 1);
    assert.equal((await openLinks(storage)).length, 1, 'the close write failed');
    return { storage, driver, writes };
  }

  it('writes a close whose first write failed before it resolves (the retry made at once, not after its pause)', async () => {
    const { logger, errors } = recording();
    const { storage, driver, writes } = await stoppedWithCloseFailing(logger);
    writes.mode = 'pass';
    await driver.close(new AbortController().signal);
    assert.equal(writes.attempts, 2);
    assert.deepEqual(await openLinks(storage), [], 'every link of the phone is closed');
    assert.deepEqual(errors, []);
  });

  it('gives up when storage still fails at the stop, after that one attempt, with one log line', async () => {
    const { logger, errors } = recording();
    const { storage, driver, writes } = await stoppedWithCloseFailing(logger);
    await driver.close(new AbortController().signal);
    assert.equal(writes.attempts, 2, 'tried once more at the stop, then no more');
    assert.equal((await openLinks(storage)).length, 1);
    assert.deepEqual(errors, ['sandbox link records not closed at shutdown: storage still failing; those links stay open in the record']);
  });

  it('with storage blackholed: stops waiting when the stop\'s time is spent, with one log line', async () => {
    const { logger, errors } = recording();
    const { storage, driver, writes } = await stoppedWithCloseFailing(logger);
    writes.mode = 'hang';
    const spent = new AbortController();
    let closed = false;
    const closing = driver.close(spent.signal).then(() => (closed = true));
    await until(() => writes.attempts === 2, 'the retry was made at once');
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(closed, false, 'the close waits for the attempt under way');
    spent.abort();
    await closing;
    assert.equal((await openLinks(storage)).length, 1);
    assert.deepEqual(errors, ['sandbox link records not closed at shutdown: shutdownTimeoutMs spent; those links stay open in the record']);
    writes.release();
  });
});
