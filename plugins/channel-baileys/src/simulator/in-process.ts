import type { Logger } from '@parley/core';
import type { SimulatorOptions } from '../options.js';

/** The phones of a simulated WhatsApp network, as the adapters use them: which there are, and a scan. */
export interface SimulatedPhones {
  /** Numbers of the accounts created at start, the default scanner first. */
  readonly phones: string[];
  /** Base URL of the simulator's HTTP control API (packages/whatsapp-sim README, "Over HTTP"). */
  readonly controlUrl: string;
  /**
   * The phone of `phone` scans the QR code `qr` a client shows. Rejects with the simulator's refusal
   * (`status` 400 for a QR of another client, 410 for an expired one) when it does not link.
   */
  scan(phone: string, qr: string): Promise<void>;
}

/** A simulator running in this process, and what the channel needs of it. */
export interface InProcessSimulator extends SimulatedPhones {
  /** Its WebSocket endpoint (Baileys' `waWebSocketUrl`). */
  readonly url: string;
  /** Its root key, which the server's certificate chain is checked against. */
  readonly rootPublicKey: Buffer;
  /** Stops it and takes its media certificate out of this process's trusted CAs. */
  stop(): Promise<void>;
}

/**
 * Starts `@parley/whatsapp-sim` on loopback in this process, creates the configured accounts and
 * trusts the simulator's media certificate in this process (`trustSimulatorMedia`: Baileys uploads
 * and downloads through Node's default CA list). Loaded only when the configuration has a
 * `simulator`: nothing of the simulator is imported otherwise. The start is logged at `warn`:
 * instances of this server then reach no real WhatsApp.
 */
export async function startInProcessSimulator(options: SimulatorOptions, logger: Logger): Promise<InProcessSimulator> {
  const sim = await import('@parley/whatsapp-sim');
  const running = await sim.startSimulator({
    port: options.port ?? 0, controlPort: options.controlPort ?? 0, ...(options.groupAddressing ? { groupAddressing: options.groupAddressing } : {}),
  });
  let untrustMedia: (() => void) | undefined;
  try {
    for (const phone of options.phones) running.simulator.createAccount({ number: phone.number, ...(phone.pushName ? { pushName: phone.pushName } : {}) });
    untrustMedia = sim.trustSimulatorMedia(running.mediaCertificate);
  } catch (err) {
    await running.stop();
    throw err;
  }
  const phones = options.phones.map((p) => p.number);
  logger.warn({ websocketUrl: running.url, controlUrl: running.controlUrl, phones },
    'WhatsApp runs on a simulator in this process (development only): instances reach no real WhatsApp; its control API drives the simulated phones');
  return {
    url: running.url,
    rootPublicKey: running.rootPublicKey,
    controlUrl: running.controlUrl,
    phones,
    scan: async (phone, qr) => {
      await running.simulator.scanQr(phone, qr);
    },
    stop: async () => {
      untrustMedia?.();
      await running.stop();
    },
  };
}
