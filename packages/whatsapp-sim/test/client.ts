import assert from 'node:assert/strict';
import makeWASocket, { Browsers } from '@whiskeysockets/baileys';
import type { AuthenticationState, BaileysEventMap, ConnectionState, SocketConfig, WAMessage, WAMessageUpdate, WASocket } from '@whiskeysockets/baileys';
import { after, before } from 'node:test';
import { memoryAuthState, startSimulator, trustSimulatorMedia, trustSimulatorRoot, type RunningSimulator } from '../src/index.js';

/** A logger that drops everything (Baileys logs a lot at info). */
export const silent: SocketConfig['logger'] = { level: 'silent', child: () => silent, trace() {}, debug() {}, info() {}, warn() {}, error() {} };

/** Baileys' timings shortened so every test stays within seconds. */
export const FAST: Partial<SocketConfig> = {
  connectTimeoutMs: 4_000,
  keepAliveIntervalMs: 1_000,
  defaultQueryTimeoutMs: 5_000,
  retryRequestDelayMs: 50,
  markOnlineOnConnect: false,
};

/** What one socket emitted. */
export interface Seen {
  qrs: string[];
  updates: Partial<ConnectionState>[];
  upserts: WAMessage[];
  messageUpdates: WAMessageUpdate[];
  histories: Array<BaileysEventMap['messaging-history.set']>;
  closeCode: number | undefined;
  closeMessage: string | undefined;
}

/**
 * The unmodified Baileys socket against the simulator, recording what it emits. `auth` persists across
 * sockets like a real app's stored session.
 */
export class TestClient {
  readonly auth: AuthenticationState = memoryAuthState();
  sock: WASocket | undefined;
  seen: Seen = TestClient.fresh();
  /** Close codes of every socket this client opened, in order. */
  readonly closes: Array<number | undefined> = [];
  private reconnecting = false;

  constructor(private readonly url: string, private readonly config: Partial<SocketConfig> = {}) {}

  static fresh(): Seen {
    return { qrs: [], updates: [], upserts: [], messageUpdates: [], histories: [], closeCode: undefined, closeMessage: undefined };
  }

  /** Opens a new socket with the stored credentials (what an app does on start and after a close). */
  connect(extra: Partial<SocketConfig> = {}): WASocket {
    this.seen = TestClient.fresh();
    const seen = this.seen;
    const sock = makeWASocket({
      waWebSocketUrl: this.url, auth: this.auth, logger: silent, browser: Browsers.ubuntu('Chrome'), ...FAST, ...this.config, ...extra,
    });
    sock.ev.on('connection.update', (update) => {
      seen.updates.push(update);
      if (update.qr) seen.qrs.push(update.qr);
      if (update.connection === 'close') {
        const error = update.lastDisconnect?.error as (Error & { output?: { statusCode?: number } }) | undefined;
        seen.closeCode = error?.output?.statusCode;
        seen.closeMessage = error?.message;
        this.closes.push(seen.closeCode);
        if (this.reconnecting) setTimeout(() => this.reconnecting && this.connect(), 100);
      }
    });
    sock.ev.on('messages.upsert', ({ messages }) => seen.upserts.push(...messages));
    sock.ev.on('messages.update', (updates) => seen.messageUpdates.push(...updates));
    sock.ev.on('messaging-history.set', (set) => seen.histories.push(set));
    this.sock = sock;
    return sock;
  }

  /**
   * The highest status Baileys reported for a message it sent: a receipt that arrives while the message's
   * own upsert is still buffered is folded into that upsert instead of a separate messages.update.
   */
  statusOf(id: string): number {
    const statuses = [
      ...this.seen.upserts.filter((m) => m.key.id === id).map((m) => m.status ?? 0),
      ...this.seen.messageUpdates.filter((u) => u.key.id === id).map((u) => u.update.status ?? 0),
    ];
    return Math.max(0, ...statuses);
  }

  get opened(): boolean {
    return this.seen.updates.some((u) => u.connection === 'open');
  }

  get closed(): boolean {
    return this.seen.closeCode !== undefined || this.seen.updates.some((u) => u.connection === 'close');
  }

  /** Links this client by QR through `scan` (the phone), then reconnects after the 515 restart until open. */
  async link(scan: (qr: string) => Promise<unknown>): Promise<void> {
    this.connect();
    await waitFor(() => this.seen.qrs.length > 0, 'a QR code');
    await scan(this.seen.qrs[0]!);
    await waitFor(() => this.closed, 'the restart after pairing');
    if (this.seen.closeCode !== 515) throw new Error(`expected 515 after pairing, got ${this.seen.closeCode} ${this.seen.closeMessage}`);
    this.connect();
    await waitFor(() => this.opened, 'the connection to open after the restart');
    this.closes.length = 0;
  }

  /** Like an app: after any close, open a new socket 100 ms later (until `end`). */
  keepReconnecting(): void {
    this.reconnecting = true;
  }

  end(): void {
    this.reconnecting = false;
    this.sock?.end(undefined);
  }
}

/** Polls `check` every 20 ms until it holds, failing after `timeoutMs`. */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * A simulator for the suite: started before it with its root (and, with `media`, its media host's
 * certificate) trusted in this process, handed to `set`, and stopped after it, trust undone.
 */
export function useSimulator(set: (sim: RunningSimulator) => void, options: { media?: boolean } = {}): void {
  let sim: RunningSimulator | undefined;
  let untrust: (() => void)[] = [];
  before(async () => {
    sim = await startSimulator();
    untrust = [trustSimulatorRoot(sim.rootPublicKey), ...(options.media ? [trustSimulatorMedia(sim.mediaCertificate)] : [])];
    set(sim);
  });
  after(async () => {
    for (const undo of untrust.reverse()) undo();
    await sim?.stop();
  });
}

/** A caller of a simulator's HTTP control API (its URL read at each call): the status and the parsed JSON body, if any. */
export function controlApi(sim: () => RunningSimulator) {
  return async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const res = await fetch(`${sim().controlUrl}${path}`, {
      method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };
}

/**
 * A control API refusal in one line, after checking it has Parley's error model (`{status, error: {code,
 * message, details?}}`): its code, and for a `validation_failed` the simulator's own `reason` (if any) and
 * the fields it names, `validation_failed:invalid_timer body.expiration`.
 */
export function refusal(res: { status: number; body: any }): string {
  assert.equal(res.body?.status, res.status, JSON.stringify(res.body));
  const { code, message, details } = res.body.error;
  assert.equal(typeof message, 'string');
  if (details !== undefined) assert.equal(typeof details, 'object');
  if (code !== 'validation_failed') return code;
  const fields = details.fields as Array<{ field: string; message: string }>;
  assert.ok(fields.length > 0 && fields.every((f) => /^(body|path)(\.|$)/.test(f.field) && f.message === message), JSON.stringify(fields));
  return `${code}${details.reason ? `:${details.reason}` : ''} ${fields.map((f) => f.field).join(',')}`;
}
