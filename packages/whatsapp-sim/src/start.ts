import { Simulator } from './simulator.js';
import type { SimulatorOptions } from './simulator.js';
import { startControlServer } from './control/http.js';

export interface StartOptions extends SimulatorOptions {
  /** Port of the HTTP control API (0: any free port). */
  controlPort?: number;
}

/** A started simulator: where clients connect, the key they must trust, the control API, and how to stop it. */
export interface RunningSimulator {
  /** `waWebSocketUrl` for Baileys. */
  url: string;
  /** Base URL of the HTTP control API. */
  controlUrl: string;
  /** The root public key to pass to `trustSimulatorRoot`. */
  rootPublicKey: Buffer;
  /** The media host's certificate (PEM), for `trustSimulatorMedia` or a NODE_EXTRA_CA_CERTS file. */
  mediaCertificate: string;
  /** The programmatic control API (the HTTP one is a thin layer over it). */
  simulator: Simulator;
  stop(): Promise<void>;
}

/** Starts a simulator and its control API on loopback (port 0 picks a free port). */
export async function startSimulator(options: StartOptions = {}): Promise<RunningSimulator> {
  const simulator = new Simulator(options);
  await simulator.listen();
  const control = await startControlServer(simulator, options.host ?? '127.0.0.1', options.controlPort ?? 0).catch(async (error: unknown) => {
    await simulator.stop();
    throw error;
  });
  return {
    url: simulator.url,
    controlUrl: control.url,
    rootPublicKey: simulator.rootPublicKey,
    mediaCertificate: simulator.mediaCertificate,
    simulator,
    stop: async () => {
      await control.close();
      await simulator.stop();
    },
  };
}
