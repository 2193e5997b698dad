import type { AccountUser } from '../domain/account.js';

/** Answer of `POST /{key}/instance` (spec 4.1). */
export interface ConnectResult {
  phoneConnected: boolean;
  /** Raw QR string, empty once connected. */
  qrcode: string;
  /** QR as a PNG data URI, empty once connected. */
  image: string;
  user: AccountUser | null;
}

/**
 * What a main-channel connection is doing. `phoneConnected` (spec 2.1) says only whether it is open;
 * this says what it waits for while it is not.
 */
export type ConnectionStatus =
  /** No connection is running or planned (never connected, or logged out). */
  | 'disconnected'
  /** Opening, or waiting to retry after a failed attempt (`lastError` says why). */
  | 'connecting'
  /** Paired nowhere yet: a QR code is waiting to be scanned. */
  | 'waiting_for_qr_scan'
  /** A pairing code was handed out and waits to be entered on the phone. */
  | 'waiting_for_pairing_code'
  | 'open'
  /** Reconnection stopped (`failure` says why); only an explicit connect starts again. */
  | 'stopped';

/** Network-level cause of a failed connection attempt, when one is known. */
export type ConnectionErrorCause = 'dns' | 'refused' | 'timeout' | 'reset' | 'tls';

/** The last failed connection attempt or close. */
export interface ConnectionError {
  /** The channel's close code (for WhatsApp, Baileys' `DisconnectReason`: 408, 428, 440, …). */
  code: number;
  /** Name of the code (`connectionLost`, `connectionReplaced`, …). */
  reason: string;
  cause?: ConnectionErrorCause;
  /** What happened, in words (the underlying error's message). */
  message: string;
  /** Unix ms. */
  at: number;
}

/** Live connection view of an adapter. */
export interface ConnectionState {
  phoneConnected: boolean;
  user: AccountUser | null;
  /** Set when reconnection stopped (attempts used up, or a close no retry can fix); cleared by the next connect. */
  failure?: { code: number; reason: string; attempts: number };
  /** What the connection is doing; channels that do not report it leave it out. */
  status?: ConnectionStatus;
  /** The last failed attempt or close since the connection last opened; cleared when it opens. */
  lastError?: ConnectionError;
  /**
   * Present when the channel runs on a simulated network whose phones can scan this connection's QR
   * code ({@link ConnectionCapability.simulateScan}): a development set-up, never a real network.
   */
  simulator?: SimulatorScanAction;
}

/** What a channel on a simulated network offers for linking without a real phone. */
export interface SimulatorScanAction {
  /** Numbers of the simulated phones that can scan, the default first. */
  phones: string[];
  /** Base URL of the simulator's own control API (to drive its phones by hand), when it has one. */
  controlUrl?: string;
}

/** Answer of {@link ConnectionCapability.simulateScan}: the simulated phone that scanned, and the state after it. */
export interface SimulatedScanResult {
  phone: string;
  state: ConnectionState;
}

/**
 * Connecting, restarting, resynchronising and logging out (spec 4.1). Every adapter of a main channel
 * has it. Events (`qrcode`, `connection`) are emitted through the adapter's event sink.
 */
export interface ConnectionCapability {
  /**
   * Starts (or continues) a connection. Answers the current QR when pairing is needed, or
   * `phoneConnected: true` when a stored session connected. Never throws for "already connected".
   */
  connect(): Promise<ConnectResult>;
  /** Requests an 8-character pairing code for `phoneNumber` (digits), formatted `XXXX-XXXX`. */
  requestPairingCode(phoneNumber: string): Promise<string>;
  /** Closes and reopens the connection, keeping the session. */
  restart(): Promise<void>;
  /** Full app-state resynchronisation (chats, contacts, labels). Throws ConflictError when not connected. */
  resync(): Promise<void>;
  /** Logs out, clears the session. Idempotent. */
  logout(): Promise<void>;
  /** Current state, synchronous. */
  state(): ConnectionState;
  /**
   * Only on a simulated network ({@link ConnectionState.simulator}): the simulated phone `phone`
   * (default the first one) scans the QR code the connection shows, and the answer comes once the
   * connection opened (or the wait ended; `state` says which). ConflictError when no QR code shows,
   * ValidationError for a phone the network does not have.
   */
  simulateScan?(phone?: string): Promise<SimulatedScanResult>;
}

/** Three-step mobile registration (spec 4.1 `mobile/*`). Absent where the channel cannot do it. */
export interface MobileRegistrationCapability {
  prepare(input: { phoneNumberCountryCode: string; phoneNumberNationalNumber: string; phoneNumberMobileNetworkCode: string }): Promise<void>;
  requestCode(method: 'sms' | 'voice'): Promise<{ method: string; length?: number }>;
  verify(code: string): Promise<{ phoneConnected: boolean }>;
}
