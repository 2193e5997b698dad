import { WHATSAPP_ROOT_KEY } from './connection/server-certificate.js';
import { CIPHERTEXT_GRACE_MS } from './events/undecrypted.js';

/**
 * Reconnection policy: capped exponential backoff with jitter. A transient close (408, 428, 500, 503,
 * a network failure) is retried for as long as it lasts, every `maxDelayMs` at most; only a close no
 * retry can fix (401, 403, 411, 440) or an unscanned QR code stops the connection.
 */
export interface ReconnectPolicy {
  /** Delay before the first reconnection; doubles on each further attempt. */
  baseDelayMs: number;
  /** Upper bound of one delay. */
  maxDelayMs: number;
  /** Fraction (0–1) of each delay taken off at random, so instances do not reconnect in lockstep. */
  jitter: number;
}

/** Thresholds that turn repeated restriction signals into a `health` event. */
export interface HealthPolicy {
  /** Sends failing with error 463 within `failedSendWindowMs` that mark the account restricted. */
  failedSendThreshold: number;
  failedSendWindowMs: number;
}

/** Options of the `@parley/channel-baileys` plugin (validated by the host against {@link baileysOptionsSchema}). */
export interface BaileysOptions {
  /**
   * `maxAttempts` is accepted for older configurations and ignored (a warning at start-up): giving up
   * after a number of attempts left an account offline for good after an outage of some minutes.
   */
  reconnect?: Partial<ReconnectPolicy> & { maxAttempts?: number };
  /** Signal keys kept in memory per instance (least recently used first out). */
  keyCacheSize?: number;
  /** Group metadata entries kept in memory per instance, to send to groups without a query each time. */
  groupCacheSize?: number;
  /** Name shown in the phone's linked-devices list. */
  browserName?: string;
  markOnlineOnConnect?: boolean;
  /** Ask the phone for the full history on first pairing (large). */
  syncFullHistory?: boolean;
  /** WebSocket connect timeout handed to Baileys. */
  connectTimeoutMs?: number;
  /**
   * Baileys' keep-alive: a ping every `keepAliveIntervalMs` (default Baileys' 30 s), and a connection that
   * received nothing for that long plus 5 s is taken as lost (408) and reconnected. A link that drops
   * packets silently is therefore noticed 35 to 65 s after its last frame with the default.
   */
  keepAliveIntervalMs?: number;
  /**
   * How long each QR code lives before the next one shows (Baileys' `qrTimeout`); default Baileys' own:
   * 60 s for the first code, 20 s for each next. WhatsApp hands out six codes a connection, after which
   * the connection ends (`qr_timeout`): about 160 s of codes by default, six times this when set.
   */
  qrTimeoutMs?: number;
  /**
   * How long a message that did not decrypt waits for the sender's resend (Baileys asks for it with a
   * retry receipt) before it is reported as `message-unsupported` with details `ciphertext`; default 30 s.
   */
  undecryptableGraceMs?: number;
  /** WhatsApp Web's WebSocket endpoint (Baileys' `waWebSocketUrl`); default Baileys' own, `wss://web.whatsapp.com/ws/chat`. */
  webSocketUrl?: string;
  /**
   * Base64 of the 32-byte Curve25519 root key the server's certificate chain must be signed by, for a
   * server that is not WhatsApp (a simulator's `rootPublicKey`); default WhatsApp's root. With a
   * `webSocketUrl`, each connection attempt first checks the server's chain against it and stops
   * with a certificate error when it does not hold.
   */
  serverRootKey?: string;
  /** Development only: run on a WhatsApp simulator started in this process (see {@link SimulatorOptions}). */
  simulator?: SimulatorOptions;
  /**
   * How long `connect()` and `requestPairingCode()` wait for the first QR or the open connection. A
   * connect that gets neither in time answers the connection's state (`connecting`) instead.
   */
  qrWaitMs?: number;
  /** WhatsApp Web version to announce, when Baileys' built-in one is refused. */
  version?: [number, number, number];
  /** Level of Baileys' own log lines forwarded to the Parley logger. */
  logLevel?: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'silent';
  health?: Partial<HealthPolicy>;
}

/**
 * A WhatsApp simulator (`@parley/whatsapp-sim`) started in the server's process, on loopback: every
 * instance of the channel connects to it instead of WhatsApp, its root key and media certificate are
 * trusted in this process only, and its simulated phones can scan QR codes
 * (`POST /{key}/instance/simulated-scan`). Excludes `webSocketUrl` and `serverRootKey`.
 */
export interface SimulatorOptions {
  /** Accounts created at start, each with a simulated phone; the first scans by default. */
  phones: { number: string; pushName?: string }[];
  /** Port of the simulator's WebSocket (0: any free port). */
  port?: number;
  /** Port of its HTTP control API, to drive the phones by hand (0: any free port; the start-up log names it). */
  controlPort?: number;
  /**
   * How the groups the instances create are addressed: `lid`, by LID with the numbers beside, as WhatsApp
   * creates groups now; `pn` (default), by phone number (the simulator's `groupAddressing`).
   */
  groupAddressing?: 'pn' | 'lid';
}

/** Options with every default applied. */
export interface ResolvedBaileysOptions {
  reconnect: ReconnectPolicy;
  keyCacheSize: number;
  groupCacheSize: number;
  browserName: string;
  markOnlineOnConnect: boolean;
  syncFullHistory: boolean;
  connectTimeoutMs: number;
  keepAliveIntervalMs: number;
  qrTimeoutMs?: number;
  undecryptableGraceMs: number;
  webSocketUrl?: string;
  /** The root the server's chain is checked against before each connection attempt; only with a `webSocketUrl`. */
  serverRoot?: Buffer;
  qrWaitMs: number;
  version?: [number, number, number];
  logLevel: NonNullable<BaileysOptions['logLevel']>;
  health: HealthPolicy;
}

/** JSON Schema of {@link BaileysOptions}. */
export const baileysOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    reconnect: {
      type: 'object',
      additionalProperties: false,
      properties: {
        maxAttempts: { type: 'integer', minimum: 1, maximum: 1000 },
        baseDelayMs: { type: 'integer', minimum: 0, maximum: 3_600_000 },
        maxDelayMs: { type: 'integer', minimum: 0, maximum: 86_400_000 },
        jitter: { type: 'number', minimum: 0, maximum: 1 },
      },
    },
    keyCacheSize: { type: 'integer', minimum: 0, maximum: 1_000_000 },
    groupCacheSize: { type: 'integer', minimum: 0, maximum: 100_000 },
    browserName: { type: 'string', minLength: 1, maxLength: 64 },
    markOnlineOnConnect: { type: 'boolean' },
    syncFullHistory: { type: 'boolean' },
    connectTimeoutMs: { type: 'integer', minimum: 1000, maximum: 600_000 },
    keepAliveIntervalMs: { type: 'integer', minimum: 1000, maximum: 600_000 },
    qrTimeoutMs: { type: 'integer', minimum: 1000, maximum: 600_000 },
    undecryptableGraceMs: { type: 'integer', minimum: 1000, maximum: 600_000 },
    webSocketUrl: { type: 'string', pattern: '^wss?://', maxLength: 2048 },
    serverRootKey: { type: 'string', pattern: '^[A-Za-z0-9+/]{43}=$' },
    simulator: {
      type: 'object',
      additionalProperties: false,
      required: ['phones'],
      properties: {
        phones: {
          type: 'array', minItems: 1, maxItems: 20,
          items: {
            type: 'object', additionalProperties: false, required: ['number'],
            properties: { number: { type: 'string', pattern: '^\\d{8,15}$' }, pushName: { type: 'string', minLength: 1, maxLength: 64 } },
          },
        },
        port: { type: 'integer', minimum: 0, maximum: 65_535 },
        controlPort: { type: 'integer', minimum: 0, maximum: 65_535 },
        groupAddressing: { type: 'string', enum: ['pn', 'lid'] },
      },
    },
    qrWaitMs: { type: 'integer', minimum: 1000, maximum: 600_000 },
    version: { type: 'array', items: { type: 'integer', minimum: 0 }, minItems: 3, maxItems: 3 },
    logLevel: { type: 'string', enum: ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] },
    health: {
      type: 'object',
      additionalProperties: false,
      properties: {
        failedSendThreshold: { type: 'integer', minimum: 1, maximum: 10_000 },
        failedSendWindowMs: { type: 'integer', minimum: 1000, maximum: 86_400_000 },
      },
    },
  },
} as const;

function reconnectPolicy(given: BaileysOptions['reconnect'] = {}): ReconnectPolicy {
  const { maxAttempts: _ignored, ...policy } = given;
  return { baseDelayMs: 2_000, maxDelayMs: 120_000, jitter: 0.2, ...policy };
}

/** Applies the defaults to validated options. */
export function resolveOptions(options: BaileysOptions = {}): ResolvedBaileysOptions {
  return {
    reconnect: reconnectPolicy(options.reconnect),
    keyCacheSize: options.keyCacheSize ?? 5_000,
    groupCacheSize: options.groupCacheSize ?? 500,
    browserName: options.browserName ?? 'Parley',
    markOnlineOnConnect: options.markOnlineOnConnect ?? false,
    syncFullHistory: options.syncFullHistory ?? false,
    connectTimeoutMs: options.connectTimeoutMs ?? 20_000,
    keepAliveIntervalMs: options.keepAliveIntervalMs ?? 30_000,
    ...(options.qrTimeoutMs ? { qrTimeoutMs: options.qrTimeoutMs } : {}),
    undecryptableGraceMs: options.undecryptableGraceMs ?? CIPHERTEXT_GRACE_MS,
    ...(options.webSocketUrl ? { webSocketUrl: options.webSocketUrl, serverRoot: options.serverRootKey ? Buffer.from(options.serverRootKey, 'base64') : WHATSAPP_ROOT_KEY } : {}),
    qrWaitMs: options.qrWaitMs ?? 10_000,
    ...(options.version ? { version: options.version } : {}),
    logLevel: options.logLevel ?? 'warn',
    health: { failedSendThreshold: 3, failedSendWindowMs: 600_000, ...options.health },
  };
}
