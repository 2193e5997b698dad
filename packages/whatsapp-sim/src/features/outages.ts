import type { ClientConnection } from '../transport/connection.js';
import type { Listener } from '../transport/listener.js';
import { SimError } from '../network/errors.js';
import { CLOSE_CODES, SESSION_REFUSALS, STREAM_ERRORS } from '../verdicts.js';

export type OutageMode = 'refuse' | 'blackhole' | 'slow';

export interface OutageView {
  mode: OutageMode | 'none';
  /** When a timed outage ends by itself (ISO time), if it was given a duration. */
  endsAt: string | undefined;
  /** A slow link's delay of every frame, each way. */
  latencyMs?: number;
}

/** Longest outage the control API starts (one hour): a test that forgets to end one is still bounded. */
export const MAX_OUTAGE_MS = 3_600_000;
/** Longest delay a slow link adds to each frame (one minute). */
export const MAX_LATENCY_MS = 60_000;

/**
 * Network outages as a client sees them. `refuse`: the port is closed (new connections fail at once) and
 * live sockets are dropped. `blackhole`: connections are accepted and never answered, and live sockets stop
 * receiving anything, so clients notice only through their own timeouts (Baileys: keep-alive, 408).
 * `slow`: a slow link; every frame of live and new sockets, either way, arrives `latencyMs` later.
 */
export class Outages {
  private mode: OutageMode | 'none' = 'none';
  private timer: NodeJS.Timeout | undefined;
  private endsAt: Date | undefined;
  /** The delay of every frame while a slow link lasts (0 otherwise); new connections take it too. */
  latencyMs = 0;

  constructor(private readonly listener: Listener, private readonly connections: () => ClientConnection[]) {}

  view(): OutageView {
    return { mode: this.mode, endsAt: this.endsAt?.toISOString(), ...(this.latencyMs ? { latencyMs: this.latencyMs } : {}) };
  }

  async start(mode: OutageMode, durationMs?: number, latencyMs?: number): Promise<OutageView> {
    if (mode !== 'refuse' && mode !== 'blackhole' && mode !== 'slow') throw new SimError(400, 'invalid_mode', 'mode must be "refuse", "blackhole" or "slow"', { field: 'mode', mode });
    if (mode === 'slow' ? latencyMs === undefined || !Number.isInteger(latencyMs) || latencyMs < 1 || latencyMs > MAX_LATENCY_MS : latencyMs !== undefined) {
      throw new SimError(400, 'invalid_latency', `latencyMs (an integer from 1 to ${MAX_LATENCY_MS}) goes with mode "slow" only`, { field: 'latencyMs', latencyMs });
    }
    if (durationMs !== undefined && (!Number.isInteger(durationMs) || durationMs < 1 || durationMs > MAX_OUTAGE_MS)) {
      throw new SimError(400, 'invalid_duration', `durationMs must be an integer from 1 to ${MAX_OUTAGE_MS}`, { field: 'durationMs', durationMs });
    }
    if (this.mode !== 'none') throw new SimError(409, 'outage_in_progress', `a ${this.mode} outage is in progress; end it first`, { mode: this.mode });
    this.mode = mode;
    this.latencyMs = mode === 'slow' ? latencyMs! : 0;
    for (const connection of this.connections()) {
      if (mode === 'refuse') connection.terminate();
      else if (mode === 'slow') connection.latencyMs = this.latencyMs;
      else connection.silenced = true;
    }
    if (mode !== 'slow') await this.listener.admit(mode);
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
    this.latencyMs = 0;
    for (const connection of this.connections()) {
      connection.latencyMs = 0;
      if (connection.silenced) connection.terminate();
    }
    await this.listener.admit('open');
    return this.view();
  }

  clear(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.endsAt = undefined;
  }
}

/**
 * Ends one client's session with a code from CLOSE_CODES: a stream error carrying it (440: a replaced session),
 * a bare close for 428, and for 403 and 411 the refusals of SESSION_REFUSALS (a `<failure>`, an `<ib>`).
 */
export function closeClient(connection: ClientConnection, code: number): void {
  if (!Number.isInteger(code) || !(code in CLOSE_CODES.value)) {
    throw new SimError(400, 'invalid_code', `code must be one of ${Object.keys(CLOSE_CODES.value).join(', ')}`, { field: 'code', code });
  }
  if (code === 440) connection.send(STREAM_ERRORS.replaced.node());
  else if (code === 403) connection.send(SESSION_REFUSALS.forbidden.node());
  else if (code === 411) connection.send(SESSION_REFUSALS.multideviceMismatch.node());
  else if (code !== 428) connection.send({ tag: 'stream:error', attrs: { code: String(code) } });
  connection.close();
}
