import { UpstreamError, ValidationError, type ConnectionError } from '@parley/core';

/** The digits of a phone number given for a pairing code (400 unless 6 to 15 digits with country code). */
export function pairingDigits(phoneNumber: string): string {
  const digits = phoneNumber.replace(/[\s()+-]/g, '');
  if (!/^\d{6,15}$/.test(digits)) throw new ValidationError('phoneNumber must be a phone number with country code (6 to 15 digits)');
  return digits;
}

/** Baileys' 8-character pairing code as `XXXX-XXXX`. */
export function formatPairingCode(code: string): string {
  const clean = code.replace(/[^0-9A-Za-z]/g, '').toUpperCase();
  return `${clean.slice(0, 4)}-${clean.slice(4, 8)}`;
}

/** The error of a pairing-code request that found no login handshake to ride on (502). */
export function unreachable(last: ConnectionError | undefined, retryable: boolean): UpstreamError {
  if (!last) return new UpstreamError('WhatsApp did not start the login handshake in time; try again', { retryable: true });
  return new UpstreamError(`WhatsApp could not be reached: ${last.message}${last.cause ? ` (${last.cause})` : ''}`, {
    retryable, upstreamCode: last.code,
  });
}
