import type { Call } from '../domain/resources.js';

/** Rejecting incoming calls (spec 4.6 DELETE). */
export interface CallRejectCapability {
  reject(callId: string, callFrom: string): Promise<void>;
}

/** Placing, accepting and ending voice calls (spec 4.6). Absent where the channel cannot do it. */
export interface CallsCapability extends CallRejectCapability {
  offer(to: string, options?: { isVideo?: boolean }): Promise<Call>;
  accept(callId: string, callFrom: string): Promise<void>;
  end(callId: string, peerJid: string): Promise<void>;
}
