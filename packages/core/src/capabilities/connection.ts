import type { AccountUser } from '../domain/instance.js';

/** Answer of `POST /{key}/instance` (spec 4.1). */
export interface ConnectResult {
  phoneConnected: boolean;
  /** Raw QR string, empty once connected. */
  qrcode: string;
  /** QR as a PNG data URI, empty once connected. */
  image: string;
  user: AccountUser | null;
}

/** Live connection view of an adapter. */
export interface ConnectionState {
  phoneConnected: boolean;
  user: AccountUser | null;
  /** Set when reconnection gave up; cleared by the next connect. */
  failure?: { code: number; reason: string; attempts: number };
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
}

/** Three-step mobile registration (spec 4.1 `mobile/*`). Absent where the channel cannot do it. */
export interface MobileRegistrationCapability {
  prepare(input: { phoneNumberCountryCode: string; phoneNumberNationalNumber: string; phoneNumberMobileNetworkCode: string }): Promise<void>;
  requestCode(method: 'sms' | 'voice'): Promise<{ method: string; length?: number }>;
  verify(code: string): Promise<{ phoneConnected: boolean }>;
}
