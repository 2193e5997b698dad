import type { ClientConnection } from '../transport/connection.js';
import type { Listener } from '../transport/listener.js';
import { SimError } from '../network/errors.js';
import { CLOSE_CODES } from '../verdicts.js';

export type OutageMode = 'refuse' | 'blackhole';

export interface OutageView {
  mode: OutageMode | 'none';
  /** When a timed outage ends by itself (ISO time), if it was given a duration. */
  endsAt: string | undefined;
}

/** Longest outage the control API starts (one hour): a test that forgets to end one is still bounded. */
export const MAX_OUTAGE_MS = 3_600_000;

/**
 * Network outages as a client sees them. `refuse`: the port is closed (new connections fail at once) and
 * live sockets are dropped. `blackhole`: connections are accepted and never answered, and live sockets stop
 * receiving anything, so clients notice only through their own timeouts (Baileys: keep-alive, 408).
 */
export class Outages {
  private mode: OutageMode | 'none' = 'none';
  private timer: NodeJS.Timeout | undefined;
  private endsAt: Date | undefined;

  constructor(private readonly listener: Listener, private readonly connections: () => ClientConnection[]) {}

  view(): OutageView {
    return { mode: this.mode, endsAt: this.endsAt?.toISOString() };
  }

  async start(mode: OutageMode, durationMs?: number): Promise<OutageView> {
    if (mode !== 'refuse' && mode !== 'blackhole') throw new SimError(400, 'invalid_mode', 'mode must be "refuse" or "blackhole"', { mode });
    if (durationMs !== undefined && (!Number.isInteger(durationMs) || durationMs < 1 || durationMs > MAX_OUTAGE_MS)) {
      throw new SimError(400, 'invalid_duration', `durationMs must be an integer from 1 to ${MAX_OUTAGE_MS}`, { durationMs });
    }
    if (this.mode !== 'none') throw new SimError(409, 'outage_in_progress', `a ${this.mode} outage is in progress; end it first`, { mode: this.mode });
    this.mode = mode;
    for (const connection of this.connections()) {
      if (mode === 'refuse') connection.terminate();
      else connection.silenced = true;
    }
    await this.listener.admit(mode);
    if (durationMs !== undefined) {
      this.endsAt = new Date(Date.now() + durationMs);
      this.timer = setTimeout(() => void this.end(), durationMs);
    }
    return this.view();
  }

  /** Ends the outage (no-op without one): held and silenced sockets are dropped, new connections are served. */
  async end(): Promise<OutageView> {
    this.clear();
    if (this.mode === 'none') return this.view();
    this.mode = 'none';
    for (const connection of this.connections()) if (connection.silenced) connection.terminate();
    await this.listener.admit('open');
    return this.view();
  }

  clear(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.endsAt = undefined;
  }
}

/** Ends one client's session with a code from CLOSE_CODES: a stream error carrying it, or a bare close for 428. */
export function closeClient(connection: ClientConnection, code: number): void {
  if (!(code in CLOSE_CODES.value)) {
    throw new SimError(400, 'invalid_code', `code must be one of ${Object.keys(CLOSE_CODES.value).join(', ')}`, { code });
  }
  if (code !== 428) connection.send({ tag: 'stream:error', attrs: { code: String(code) } });
  connection.close();
}
