import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { InstanceClient } from '@parley/client';
import { startSimulator, trustSimulatorMedia, trustSimulatorRoot, type RunningSimulator } from '@parley/whatsapp-sim';
import { startTestServer, type TestServer, type TestServerOptions } from './test-server.js';

/** A WhatsApp simulator and a Parley server whose WhatsApp channel (Baileys' real socket) connects to it. */
export interface SimulatedWhatsApp {
  sim: RunningSimulator;
  t: TestServer;
}

/**
 * Starts, before the suite, the simulator (its root and media certificate trusted in this process, where
 * the server's Baileys runs) and a server with the WhatsApp channel pointed at it; stops both after it.
 * `config` adds to the server's configuration (for example `allowPrivateUrls` for media on loopback).
 */
export function useSimulatedWhatsApp(set: (env: SimulatedWhatsApp) => void, config: TestServerOptions['config'] = {}): void {
  let env: SimulatedWhatsApp | undefined;
  let untrust: Array<() => void> = [];
  before(async () => {
    const sim = await startSimulator();
    untrust = [trustSimulatorRoot(sim.rootPublicKey), trustSimulatorMedia(sim.mediaCertificate)];
    const t = await startTestServer({
      plugins: [
        { package: '@parley/storage-memory' }, { package: '@parley/webhook-native' },
        { package: '@parley/channel-baileys', options: { webSocketUrl: sim.url, connectTimeoutMs: 5000, logLevel: 'silent' } },
      ],
      config: { defaultChannel: 'whatsapp', ...config },
    });
    env = { sim, t };
    set(env);
  });
  after(async () => {
    await env?.t.stop();
    for (const undo of untrust.reverse()) undo();
    await env?.sim.stop();
  });
}

/**
 * A new WhatsApp instance linked by QR to the account's phone; resolves once it is connected. `prepare`
 * runs on the new instance before it connects (for example to set its webhooks).
 */
export async function linkByQr({ sim, t }: SimulatedWhatsApp, number: string, name: string, prepare?: (api: InstanceClient) => Promise<unknown>) {
  const instance = await t.createInstance({ channel: 'whatsapp', name });
  const api = t.client(instance.key);
  await prepare?.(api);
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
