import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { startSimulator, trustSimulatorMedia, trustSimulatorRoot, type RunningSimulator } from '@parley/whatsapp-sim';
import { startTestServer, type TestServer } from './test-server.js';

/** A new WhatsApp instance linked by QR to the account's phone; resolves once it is connected. */
async function linkByQr(sim: RunningSimulator, t: TestServer, number: string, name: string) {
  const instance = await t.createInstance({ channel: 'whatsapp', name });
  const api = t.client(instance.key);
  const connecting = await api.call('connectInstance');
  assert.equal(connecting.phoneConnected, false);
  assert.match(connecting.qrcode, /^https:\/\/wa\.me\/settings\/linked_devices#2@/);
  await sim.simulator.scanQr(number, connecting.qrcode);
  const open = await t.waitFor(async () => {
    const { instance: current } = await api.call('getInstance');
    return current.phoneConnected ? current : undefined;
  }, 20_000, 'the instance to connect after the 515 restart');
  return { api, open };
}

/**
 * Starts, before the suite, the WhatsApp simulator (@parley/whatsapp-sim) on loopback with its root and media
 * certificate trusted in this process (the server runs here: its Baileys uploads to and downloads from the
 * simulator's media host) and a Parley server whose channel-baileys connects to it; stops both after it. The
 * returned object is filled in by `before`.
 */
export function useSimulatedWhatsApp() {
  const untrust: Array<() => void> = [];
  const env = {
    sim: undefined as unknown as RunningSimulator,
    t: undefined as unknown as TestServer,
    linkByQr: (number: string, name: string) => linkByQr(env.sim, env.t, number, name),
  };
  before(async () => {
    env.sim = await startSimulator();
    untrust.push(trustSimulatorRoot(env.sim.rootPublicKey), trustSimulatorMedia(env.sim.mediaCertificate));
    env.t = await startTestServer({
      plugins: [
        { package: '@parley/storage-memory' }, { package: '@parley/webhook-native' },
        { package: '@parley/channel-baileys', options: { webSocketUrl: env.sim.url, connectTimeoutMs: 5000, logLevel: 'silent' } },
      ],
      config: { defaultChannel: 'whatsapp' },
    });
  });
  after(async () => {
    await env.t?.stop();
    for (const undo of untrust.reverse()) undo();
    await env.sim?.stop();
  });
  return env;
}
