import type { CallRejectCapability } from '@parley/core';
import type { AdapterRuntime } from '../runtime.js';
import { upstream } from '../util/errors.js';

/** Rejecting an incoming call (spec 4.6 DELETE) — the only call control Baileys offers. */
export function callRejectCapability(runtime: AdapterRuntime): CallRejectCapability {
  return {
    async reject(callId, callFrom) {
      const socket = runtime.connection.openSocket();
      await upstream('the call rejection', () => socket.rejectCall(callId, callFrom));
    },
  };
}
