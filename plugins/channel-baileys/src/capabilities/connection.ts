import type { ConnectionCapability } from '@parley/core';
import type { ConnectionManager } from '../connection/connection-manager.js';

/** Connection control (spec 4.1) — a thin view of the connection manager. */
export function connectionCapability(manager: ConnectionManager): ConnectionCapability {
  return {
    connect: () => manager.connect(),
    requestPairingCode: (phoneNumber) => manager.requestPairingCode(phoneNumber),
    restart: () => manager.restart(),
    resync: () => manager.resync(),
    logout: () => manager.logout(),
    state: () => manager.state(),
  };
}
