import { Simulator } from './simulator.js';
import type { SimulatorOptions } from './simulator.js';

export type StartOptions = SimulatorOptions;

/** A started simulator: where clients connect, the key they must trust, the API, and how to stop it. */
export interface RunningSimulator {
  /** `waWebSocketUrl` for Baileys. */
  url: string;
  /** The root public key to pass to `trustSimulatorRoot`. */
  rootPublicKey: Buffer;
  simulator: Simulator;
  stop(): Promise<void>;
}

/** Starts a simulator on loopback (port 0 picks a free port). */
export async function startSimulator(options: StartOptions = {}): Promise<RunningSimulator> {
  const simulator = new Simulator(options);
  await simulator.listen();
  return { url: simulator.url, rootPublicKey: simulator.rootPublicKey, simulator, stop: () => simulator.stop() };
}
