import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { ChannelEvent } from '@parley/core';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

type ConnectionEvent = Extract<ChannelEvent, { type: 'connection' }>;

/** A short reconnect policy without jitter, so the backoff is exact and the suite quick. */
const RECONNECT = { baseDelayMs: 100, maxDelayMs: 2_000, jitter: 0 };

/**
 * The simulator's faults against Parley's WhatsApp reconnection (docs/rest-api.md "Instance connection",
 * issue 25 defect 4): each transient close (408, 428, 500, 503) is one close event with willReconnect and the
 * instance opens again, as after a refuse outage (its refused attempts are no events); a rate-limited login (stream error 429) backs off five steps further and connects once
 * the limit passed; a slow link keeps the session; 440 and 401 stop for good, with one event each.
 */
describe('WhatsApp faults from the simulator: Parley reconnects, backs off, or stops as documented', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  // Baileys' own lines at warn and above, and the server's log captured: a close's lines name the instance and channel once.
  const env = useSimulatedWhatsApp({}, { reconnect: RECONNECT, logLevel: 'warn' }, {}, { captureLogs: true });
  before(() => {
    ({ sim, t } = env);
  });
  let n = 0;
  async function linked() {
    const account = sim.simulator.createAccount({ number: `55119876595${String(++n).padStart(2, '0')}` });
    const { api } = await env.linkByQr(account.number, `faults-${n}`);
    const instance = (await api.call('getInstance')).instance.id as string;
    const device = () => sim.simulator.getAccount(account.number).devices[0]!;
    const connections = () => t.events.filter((e): e is ConnectionEvent & { instance: string } => e.type === 'connection' && e.instance === instance);
    return { account, api, device, connections };
  }
  const opens = (events: ConnectionEvent[]) => events.filter((e) => e.status === 'open').length;

  it('408, 428, 500, 503: one close event each {code, willReconnect: true, loggedOut: false}, then open again; log lines name the instance and channel once', { timeout: 120_000 }, async () => {
    const { api, device, connections } = await linked();
    for (const code of [408, 428, 500, 503]) {
      const before = connections().length;
      const opened = opens(connections());
      sim.simulator.closeClient(device().jid, code);
      await t.waitFor(() => opens(connections()) > opened && device().online, 30_000, `the reconnection after ${code}`);
      const events = connections().slice(before);
      assert.deepEqual(events.map((e) => e.status), ['close', 'open'], `events after ${code}`);
      const close = events[0]!;
      assert.ok(close.status === 'close');
      assert.deepEqual([close.code, close.willReconnect, close.loggedOut], [code, true, false]);
      assert.equal((await api.call('getInstance')).instance.connection?.status, 'open');
    }
    // The adapter's lines and Baileys' own (its logger bridged, `lib: baileys`) name the instance once and the channel at most once.
    const instance = (await api.call('getInstance')).instance.id as string;
    const lines = t.logs.join('').split('\n').filter((l) => l.includes(`"instance":"${instance}"`));
    for (const line of lines) {
      assert.ok((line.match(/"channel":/g)?.length ?? 0) <= 1, line);
      assert.equal(line.match(/"instance":/g)?.length, 1, line);
    }
    const streamError = lines.find((l) => l.includes('"msg":"stream errored out"') && l.includes('"code":"500"'));
    assert.ok(streamError, 'Baileys logged the 500 stream error');
    assert.equal(streamError.match(/"channel":"whatsapp"/g)?.length, 1, streamError);
    assert.ok(streamError.includes('"lib":"baileys"'), streamError);
  });

  it('a refuse outage: one close event with willReconnect, refused attempts only in lastError, open once the port is back', { timeout: 60_000 }, async () => {
    const { api, device, connections } = await linked();
    const before = connections().length;
    await sim.simulator.startOutage('refuse');
    try {
      await t.waitFor(async () => (await api.call('getInstance')).instance.connection?.lastError?.cause === 'refused', 20_000, 'a refused attempt');
    } finally {
      await sim.simulator.endOutage();
    }
    await t.waitFor(() => opens(connections().slice(before)) === 1 && device().online, 30_000, 'the reconnection after the outage');
    const events = connections().slice(before);
    assert.deepEqual(events.map((e) => [e.status, e.status === 'close' ? e.willReconnect : undefined]), [['close', true], ['open', undefined]]);
  });

  it('a slow link (1 s each way) keeps the session: a send still reaches the phone', { timeout: 60_000 }, async () => {
    const { api, connections } = await linked();
    const friend = sim.simulator.createAccount({ number: '5511987659590' });
    const before = connections().length;
    await sim.simulator.startOutage('slow', undefined, 1_000);
    try {
      const sent = await api.call('sendText', { body: { to: friend.number, text: 'devagar e sempre' } });
      await t.waitFor(() => sim.simulator.received(friend.number).find((m) => m.id === sent.data.key.id), 30_000, 'the send over the slow link');
    } finally {
      await sim.simulator.endOutage();
    }
    assert.deepEqual(connections().slice(before), [], 'no close, no reopen');
  });

  it('a login over the server\'s limit (stream error 429): one throttled login, a backoff of maxDelayMs, then open', { timeout: 60_000 }, async () => {
    const { api, device, connections } = await linked();
    try {
      // One login within 1.5 s: the reconnection after the first close takes it, the one after the second is throttled.
      sim.simulator.setLoginLimit({ max: 1, windowMs: 1_500 });
      const opened = opens(connections());
      sim.simulator.closeClient(device().jid, 428);
      await t.waitFor(() => opens(connections()) > opened && device().online, 30_000, 'the first reconnection');
      sim.simulator.closeClient(device().jid, 428);
      await t.waitFor(() => sim.simulator.loginLimitView()?.throttled === 1, 30_000, 'the throttled login');
      const throttledAt = Date.now();
      const { connection } = (await api.call('getInstance')).instance;
      assert.deepEqual([connection?.status, connection?.lastError?.code, connection?.lastError?.reason], ['connecting', 429, 'rateLimited']);
      await t.waitFor(() => opens(connections()) > opened + 1 && device().online, 30_000, 'the reconnection once the limit passed');
      // Five steps further than the first retry's 100 ms: 3.2 s, capped at maxDelayMs (2 s); a plain second attempt would wait 200 ms.
      assert.ok(Date.now() - throttledAt >= 1_500, `reopened ${Date.now() - throttledAt} ms after the 429`);
      assert.equal(sim.simulator.loginLimitView()?.throttled, 1, 'no login was throttled again');
    } finally {
      sim.simulator.setLoginLimit(undefined);
    }
  });

  it('440 (another session replaced this one) and 401 (the phone removed the device) stop for good: one close event each', { timeout: 60_000 }, async () => {
    for (const [code, loggedOut] of [[440, false], [401, true]] as const) {
      const { api, account, device, connections } = await linked();
      const before = connections().length;
      if (code === 440) sim.simulator.closeClient(device().jid, 440);
      else sim.simulator.removeDevice(account.number, device().id);
      await t.waitFor(() => connections().length > before, 20_000, `the ${code} close`);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const events = connections().slice(before);
      assert.equal(events.length, 1, `one event after ${code}: ${JSON.stringify(events)}`);
      const close = events[0]!;
      assert.ok(close.status === 'close');
      assert.deepEqual([close.code, close.willReconnect, close.loggedOut], [code, false, loggedOut]);
      assert.equal((await api.call('getInstance')).instance.phoneConnected, false);
      if (code === 440) assert.equal(sim.simulator.getAccount(account.number).devices[0]!.online, false, 'no reconnection');
    }
  });
});
