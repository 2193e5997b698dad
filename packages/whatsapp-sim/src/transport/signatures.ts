import { verifySignature } from 'libsignal/src/curve.js';

/**
 * Checks an XEdDSA signature by a Curve25519 key (32 bytes, or 33 with its type byte). Baileys' own
 * `Curve.verify` (7.0.0-rc14) cannot be used to check anything: it returns true whenever libsignal's
 * `verifySignature` does not throw, and that function reports a bad signature by returning false, so
 * every well-formed signature "verifies". This one returns libsignal's answer.
 */
export function signatureValid(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array | null | undefined): boolean {
  if (!signature || signature.length !== 64) return false;
  const key = publicKey.length === 33 ? publicKey : Buffer.concat([Buffer.from([5]), publicKey]);
  try {
    return verifySignature(key, message, signature) === true;
  } catch {
    return false;
  }
}
