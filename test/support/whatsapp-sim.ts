import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { InstanceClient } from '@parley/client';
import { startSimulator, trustSimulatorMedia, trustSimulatorRoot, type RunningSimulator, type StartOptions } from '@parley/whatsapp-sim';
import { startTestServer, type TestServer, type TestServerOptions } from './test-server.js';

/** A suite's WhatsApp simulator and the Parley server whose WhatsApp channel (Baileys) connects to it. */
export interface SimulatedWhatsApp {
  readonly sim: RunningSimulator;
  readonly t: TestServer;
  /**
   * A new WhatsApp instance linked by QR to the account's phone; resolves once it is connected (`connecting`:
   * the connect answer, its QR code). It sends {@link unpaced} (no suite here tests pacing, which would make
   * each send wait up to 10 s); `prepare` runs on the new instance after that, before it connects (its
   * webhooks, say, or a pacing policy of its own).
   */
  linkByQr(number: string, name: string, prepare?: (api: InstanceClient) => Promise<unknown>): ReturnType<typeof linkByQr>;
  /** Creates a shop's account ("Loja") and a friend's ("Cliente") and links a new instance to the shop's phone. */
  shopWithFriend(shop: string, friend: string, name: string): ReturnType<typeof linkByQr>;
  /**
   * Accounts `<prefix>1` to `<prefix>4` (the shop "Loja", the owner "Dona", "Carol", "Dave"), a new instance linked to
   * the shop's phone, and a LID-addressed group "Atacado" the owner's phone made with the other three; resolves once
   * the instance reported the group with its members.
   */
  shopInLidGroup(prefix: string, name: string): ReturnType<typeof shopInLidGroup>;
}

async function shopInLidGroup(sim: RunningSimulator, t: TestServer, prefix: string, name: string) {
  const [shop, owner, carol, dave] = ['Loja', 'Dona', 'Carol', 'Dave'].map((pushName, i) => sim.simulator.createAccount({ number: `${prefix}${i + 1}`, pushName }));
  const { api } = await linkByQr(sim, t, shop!.number, name);
  const { id } = (await api.call('getInstance')).instance as { id: string };
  const group = sim.simulator.createGroup(owner!.number, 'Atacado', [shop!.number, carol!.number, dave!.number], { addressingMode: 'lid' });
  await t.waitFor(() => t.eventsOfType('group.update', id).flatMap((e) => e.groups).find((g) => g.id === group.jid && g.participants), 20_000, 'the group joined');
  return { shop: shop!, owner: owner!, carol: carol!, dave: dave!, api, id, group };
}

async function linkByQr(sim: RunningSimulator, t: TestServer, number: string, name: string, prepare?: (api: InstanceClient) => Promise<unknown>) {
  const instance = await t.createInstance({ channel: 'whatsapp', name });
  const api: InstanceClient = t.client(instance.key);
  await unpaced(api);
  await prepare?.(api);
  const connecting = await api.call('connectInstance');
  assert.equal(connecting.phoneConnected, false);
  assert.match(connecting.qrcode, /^https:\/\/wa\.me\/settings\/linked_devices#2@/);
  await sim.simulator.scanQr(number, connecting.qrcode);
  const open = await t.waitFor(async () => {
    const { instance: current } = await api.call('getInstance');
    return current.phoneConnected ? current : undefined;
  }, 20_000, 'the instance to connect after the 515 restart');
  return { api, open, connecting };
}

/**
 * A `prepare` for {@link SimulatedWhatsApp.linkByQr}: the instance sends without WhatsApp's default pacing
 * (gaps, 10 s per recipient, typing), for suites that send many messages to a few phones.
 */
async function unpaced(api: InstanceClient): Promise<void> {
  const res = await api.call('setQueuePolicy', {
    body: { perMinute: null, perHour: null, minGapMs: 0, jitterMs: 0, recipientGapMs: 0, typing: { enabled: false, msPerChar: 0, minMs: 0, maxMs: 0 } },
  });
  assert.equal(res.status, 200);
}

/**
 * Starts, before the suite, a WhatsApp simulator (its root and media certificate trusted in this process,
 * where the server's Baileys runs) and a Parley server (memory storage, native and meta webhook formats) with the
 * WhatsApp channel pointed at it; stops both after. The answer's fields are set once the suite's `before` ran. `config` adds to the server's configuration
 * (`allowPrivateUrls` for media served on loopback, say); `channel` adds to `@parley/channel-baileys`'s options (`reconnect`, say);
 * `simulator` are the simulator's own options (`qrRefs`, say); `server` the test server's (`captureLogs`, say).
 */
export function useSimulatedWhatsApp(
  config: TestServerOptions['config'] = {}, channel: Record<string, unknown> = {}, simulator: StartOptions = {}, server: Pick<TestServerOptions, 'captureLogs'> = {},
): SimulatedWhatsApp {
  let sim: RunningSimulator | undefined;
  let t: TestServer | undefined;
  let untrust: Array<() => void> = [];
  before(async () => {
    sim = await startSimulator(simulator);
    untrust = [trustSimulatorRoot(sim.rootPublicKey), trustSimulatorMedia(sim.mediaCertificate)];
    t = await startTestServer({
      plugins: [
        { package: '@parley/storage-memory' }, { package: '@parley/webhook-native' }, { package: '@parley/webhook-meta' },
        { package: '@parley/channel-baileys', options: { webSocketUrl: sim.url, connectTimeoutMs: 5000, logLevel: 'silent', ...channel } },
      ],
      config: { defaultChannel: 'whatsapp', ...config },
      ...server,
    });
  });
  after(async () => {
    await t?.stop();
    for (const undo of untrust.reverse()) undo();
    await sim?.stop();
  });
  const context: SimulatedWhatsApp = {
    get sim() {
      return sim!;
    },
    get t() {
      return t!;
    },
    linkByQr(number, name, prepare) {
      return linkByQr(sim!, t!, number, name, prepare);
    },
    shopWithFriend(shop, friend, name) {
      sim!.simulator.createAccount({ number: shop, pushName: 'Loja' });
      sim!.simulator.createAccount({ number: friend, pushName: 'Cliente' });
      return linkByQr(sim!, t!, shop, name);
    },
    shopInLidGroup(prefix, name) {
      return shopInLidGroup(sim!, t!, prefix, name);
    },
  };
  return context;
}
