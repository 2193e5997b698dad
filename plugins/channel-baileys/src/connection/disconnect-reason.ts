import type { ConnectionErrorCause } from '@parley/core';
import { DisconnectReason } from '@whiskeysockets/baileys';
import { boomStatus } from '../util/errors.js';

/** Close code of a session the server rate-limited (`<stream:error code="429">`; Baileys reports the stream error's code). */
export const RATE_LIMITED = 429;

const NAMES: Record<number, string> = {
  [DisconnectReason.loggedOut]: 'loggedOut',
  [DisconnectReason.forbidden]: 'forbidden',
  [DisconnectReason.connectionLost]: 'connectionLost',
  [DisconnectReason.multideviceMismatch]: 'multideviceMismatch',
  [DisconnectReason.connectionClosed]: 'connectionClosed',
  [DisconnectReason.connectionReplaced]: 'connectionReplaced',
  [DisconnectReason.badSession]: 'badSession',
  [DisconnectReason.unavailableService]: 'unavailableService',
  [DisconnectReason.restartRequired]: 'restartRequired',
  [RATE_LIMITED]: 'rateLimited',
};

/**
 * Closes that a reconnection cannot fix, with what they mean. Retrying them does harm: with 440 two
 * clients of one account kick each other out without end, and a banned number (403) or a phone that
 * refuses this linked device (411) refuses every attempt. What the codes are, from public sources:
 * - 440 `connectionReplaced`: `<stream:error><conflict type="replaced"/>` (Baileys 7.0.0-rc14
 *   Types/index.d.ts DisconnectReason, Socket/socket.js CB:stream:error; whatsmeow events.StreamReplaced).
 * - 403 `forbidden`: `<failure reason="403">` at login (Baileys Socket/socket.js CB:failure keeps the
 *   reason as the close code; DisconnectReason.forbidden). whatsmeow types/events ConnectFailureMainDeviceGone
 *   = 403 ("now called LOCKED in the whatsapp web code") and counts it among the logged-out reasons
 *   (ConnectFailureReason.IsLoggedOut: 401, 403, 406); Baileys PRs #280 and #535 report it for banned or
 *   blocked numbers. The session is kept here all the same: a locked account can be unlocked, and an explicit
 *   connect tries it again.
 * - 411 `multideviceMismatch`: `<ib><downgrade_webclient/></ib>`, the server telling a web client that its
 *   account is not in multi-device (Baileys Socket/socket.js CB:ib,,downgrade_webclient → "Multi-device beta
 *   not joined", DisconnectReason.multideviceMismatch).
 */
const FINAL: Partial<Record<number, string>> = {
  [DisconnectReason.connectionReplaced]:
    'another WhatsApp Web session of this account replaced this one; reconnecting would close that session in turn',
  [DisconnectReason.forbidden]: 'WhatsApp refused the connection (403 forbidden): the number may be banned',
  [DisconnectReason.multideviceMismatch]: 'the phone refused this linked device (multi-device mismatch); link it again from the phone',
};

/**
 * Reason of the close Baileys makes when WhatsApp's QR refs ran out with nobody scanning one
 * (Socket/socket.js: `new Boom('QR refs attempts ended', { statusCode: DisconnectReason.timedOut })`).
 * It shares 408 with `connectionLost`, but reconnecting would only show QR codes to nobody again.
 * Named as the sandbox names its own QR expiry, so the reason is one on every channel.
 */
export const QR_EXPIRED = 'qr_timeout';
const QR_REFS_ENDED = 'QR refs attempts ended';

/** A closed connection as the adapter reports it. */
export interface DisconnectInfo {
  code: number;
  reason: string;
  /** Network-level cause, when the socket never reached WhatsApp. */
  cause?: ConnectionErrorCause;
  /** What happened, in words. */
  message: string;
  /** True for a close no reconnection can fix ({@link FINAL}). */
  final: boolean;
}

/** Code, reason and cause of a closed connection, from the error Baileys attaches to `lastDisconnect`. */
export function disconnectInfo(error: unknown): DisconnectInfo {
  const code = boomStatus(error) ?? DisconnectReason.connectionClosed;
  const raw = error instanceof Error && error.message ? error.message : undefined;
  const qrExpired = code === DisconnectReason.timedOut && raw === QR_REFS_ENDED;
  const name = qrExpired ? QR_EXPIRED : NAMES[code];
  const cause = networkCause(error);
  const finalMessage = qrExpired
    ? 'the QR code was not scanned before WhatsApp stopped issuing new ones; connect again for a new QR code'
    : FINAL[code];
  return {
    code,
    reason: name ?? raw ?? `closed with code ${code}`,
    ...(cause ? { cause } : {}),
    message: finalMessage ?? raw ?? name ?? `closed with code ${code}`,
    final: finalMessage !== undefined,
  };
}

const DNS = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA']);
const RESET = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);
/** Certificate and handshake failures of TLS; `EPROTO` is what OpenSSL raises for a peer that does not speak TLS. */
const TLS = /^(EPROTO$|ERR_TLS_|ERR_SSL_|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|UNABLE_TO_(GET|VERIFY)_)/;

/**
 * Why the WebSocket failed, from the error `ws` raised. Baileys wraps it in a Boom whose `data` is
 * the original error and whose message is `WebSocket Error (<message>)` (Socket/socket.js,
 * `mapWebSocketError`); the handshake time-out of `ws` has no code, only its message. An HTTP answer
 * instead of the upgrade raises nothing: Baileys' client listens to `unexpected-response`, so `ws`
 * leaves the handshake to time out.
 */
function networkCause(error: unknown): ConnectionErrorCause | undefined {
  const data = (error as { data?: unknown } | null)?.data;
  const inner = data instanceof Error ? data : error instanceof Error ? error : undefined;
  if (!inner) return undefined;
  const code = (inner as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (DNS.has(code)) return 'dns';
    if (code === 'ECONNREFUSED') return 'refused';
    if (code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT') return 'timeout';
    if (RESET.has(code)) return 'reset';
    if (TLS.test(code)) return 'tls';
  }
  return /timed out/i.test(inner.message) ? 'timeout' : undefined;
}
