import { Curve, proto, WA_CERT_DETAILS } from '@whiskeysockets/baileys';
import type { KeyPair } from '@whiskeysockets/baileys';

/** Serial the intermediate certificate is issued under: clients compare it with `WA_CERT_DETAILS.SERIAL`. */
const ROOT_SERIAL = WA_CERT_DETAILS.SERIAL;
const INTERMEDIATE_SERIAL = 1;
const LEAF_SERIAL = 2;
const YEAR_S = 365 * 24 * 3600;

/** The simulator's own certificate authority and the server identity it certifies. */
export interface ServerIdentity {
  /** The root key pair: its public half is what a client must trust (see `trustSimulatorRoot`). */
  root: KeyPair;
  /** The server's static Noise key, the leaf of the chain. */
  staticKey: KeyPair;
  /** `CertChain` protobuf sent (encrypted) in every server hello. */
  certificateChain: Buffer;
}

function certificate(signer: KeyPair, details: proto.CertChain.NoiseCertificate.IDetails): proto.CertChain.INoiseCertificate {
  const encoded = proto.CertChain.NoiseCertificate.Details.encode(details).finish();
  return { details: encoded, signature: Curve.sign(signer.private, encoded) };
}

/**
 * A fresh root, an intermediate signed by it and a leaf for the server's static key signed by the
 * intermediate: the shape WhatsApp's servers send (the client checks the leaf against the
 * intermediate's key and the intermediate against the root it trusts).
 */
export function createServerIdentity(root: KeyPair = Curve.generateKeyPair()): ServerIdentity {
  const intermediate = Curve.generateKeyPair();
  const staticKey = Curve.generateKeyPair();
  const now = Math.floor(Date.now() / 1000);
  const chain = proto.CertChain.encode({
    intermediate: certificate(root, {
      serial: INTERMEDIATE_SERIAL, issuerSerial: ROOT_SERIAL, key: intermediate.public, notBefore: now - 60, notAfter: now + YEAR_S,
    }),
    leaf: certificate(intermediate, {
      serial: LEAF_SERIAL, issuerSerial: INTERMEDIATE_SERIAL, key: staticKey.public, notBefore: now - 60, notAfter: now + 30 * 24 * 3600,
    }),
  }).finish();
  return { root, staticKey, certificateChain: Buffer.from(chain) };
}

/**
 * Makes this process's Baileys accept servers certified by the simulator's root key, as one installs a
 * test CA: it replaces `WA_CERT_DETAILS.PUBLIC_KEY` (Baileys' pinned WhatsApp root), so afterwards real
 * WhatsApp servers are refused in this process. Nothing calls it implicitly. Returns a function that puts
 * back the key that was trusted before.
 */
export function trustSimulatorRoot(rootPublicKey: Uint8Array): () => void {
  if (rootPublicKey.length !== 32) throw new TypeError('trustSimulatorRoot: expected a 32-byte Curve25519 public key');
  const previous = WA_CERT_DETAILS.PUBLIC_KEY;
  WA_CERT_DETAILS.PUBLIC_KEY = Buffer.from(rootPublicKey);
  return () => {
    WA_CERT_DETAILS.PUBLIC_KEY = previous;
  };
}
