import { setTimeout as sleep } from 'node:timers/promises';
import { ConflictError, ValidationError, type ConnectionCapability, type SimulatedScanResult } from '@parley/core';
import { fullResync } from '../connection/app-state-resync.js';
import type { ConnectionManager } from '../connection/connection-manager.js';
import type { SimulatedPhones } from '../simulator/in-process.js';
import { upstream } from '../util/errors.js';

/** How long a simulated scan waits for the connection to open (pair-success, the 515 restart, the login). */
const SCAN_OPEN_WAIT_MS = 20_000;

/** Connection control (spec 4.1) — a thin view of the connection manager. */
export function connectionCapability(manager: ConnectionManager, simulated?: SimulatedPhones): ConnectionCapability {
  const base: ConnectionCapability = {
    connect: () => manager.connect(),
    requestPairingCode: (phoneNumber) => manager.requestPairingCode(phoneNumber),
    restart: () => manager.restart(),
    resync: () => upstream('the app-state resync', () => fullResync(manager.openSocket())),
    logout: () => manager.logout(),
    state: () => manager.state(),
  };
  if (!simulated) return base;
  return {
    ...base,
    state: () => ({ ...manager.state(), simulator: { phones: [...simulated.phones], controlUrl: simulated.controlUrl } }),
    simulateScan: (phone) => simulatedScan(manager, simulated, phone),
  };
}

/** The simulated phone scans the QR code the connection shows; answers once the connection opened or the wait ended. */
async function simulatedScan(manager: ConnectionManager, simulated: SimulatedPhones, phone = simulated.phones[0]!): Promise<SimulatedScanResult> {
  if (!simulated.phones.includes(phone)) {
    throw new ValidationError(`body.phone: ${phone} is not a simulated phone of this network; use one of ${simulated.phones.join(', ')}`);
  }
  if (manager.state().phoneConnected) throw new ConflictError('the instance is already connected', 'already_connected');
  const shown = await manager.connect();
  if (shown.phoneConnected) throw new ConflictError('the instance connected with its stored session', 'already_connected');
  if (!shown.qrcode) throw new ConflictError('no QR code shows: the connection is not waiting for a scan (see connection.lastError)', 'no_qr_code');
  try {
    await simulated.scan(phone, shown.qrcode);
  } catch (err) {
    const status = (err as { status?: unknown }).status;
    const message = `the simulated phone ${phone} could not scan: ${(err as Error).message}`;
    if (status === 400 || status === 404) throw new ValidationError(message);
    if (typeof status === 'number') throw new ConflictError(message, 'scan_refused');
    throw err;
  }
  const deadline = Date.now() + SCAN_OPEN_WAIT_MS;
  while (!manager.state().phoneConnected && manager.state().status !== 'stopped' && Date.now() < deadline) await sleep(100);
  return { phone, state: manager.state() };
}
