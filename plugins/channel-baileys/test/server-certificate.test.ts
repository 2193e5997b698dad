import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Curve, proto, WA_CERT_DETAILS, type KeyPair } from '@whiskeysockets/baileys';
import { checkCertificateChain, ServerCertificateError } from '../src/connection/server-certificate.js';

/** A WhatsApp-shaped chain: an intermediate signed by `root`, a leaf for `server` signed by the intermediate. */
function chain(root: KeyPair, server: Uint8Array, tamper: { leafSigner?: KeyPair; issuerSerial?: number } = {}): Uint8Array {
  const intermediate = Curve.generateKeyPair();
  const cert = (signer: KeyPair, details: proto.CertChain.NoiseCertificate.IDetails) => {
    const encoded = proto.CertChain.NoiseCertificate.Details.encode(details).finish();
    return { details: encoded, signature: Curve.sign(signer.private, encoded) };
  };
  return proto.CertChain.encode({
    intermediate: cert(root, { serial: 1, issuerSerial: tamper.issuerSerial ?? WA_CERT_DETAILS.SERIAL, key: intermediate.public }),
    leaf: cert(tamper.leafSigner ?? intermediate, { serial: 2, issuerSerial: 1, key: server }),
  }).finish();
}

describe('the server certificate chain check (Baileys rc14 accepts any signer)', () => {
  const root = Curve.generateKeyPair();
  const server = Curve.generateKeyPair().public;

  it('accepts a chain the trusted root signed, for the key the server uses', () => {
    checkCertificateChain(chain(root, server), server, root.public);
  });

  it('refuses a chain another root signed, naming the root it trusts', () => {
    const other = Curve.generateKeyPair();
    assert.equal(Curve.verify(root.public, Buffer.from('x'), Curve.sign(other.private, Buffer.from('x'))), true, 'Baileys rc14 accepts it');
    assert.throws(() => checkCertificateChain(chain(other, server), server, root.public),
      (err: Error) => err instanceof ServerCertificateError && err.message.includes(`not signed by the trusted root key (${Buffer.from(root.public).toString('base64')})`));
  });

  it('refuses a leaf its intermediate did not sign, a leaf for another key and another issuer serial', () => {
    assert.throws(() => checkCertificateChain(chain(root, server, { leafSigner: Curve.generateKeyPair() }), server, root.public), /leaf certificate is not signed by its intermediate/);
    assert.throws(() => checkCertificateChain(chain(root, server), Curve.generateKeyPair().public, root.public), /does not certify the key it uses/);
    assert.throws(() => checkCertificateChain(chain(root, server, { issuerSerial: 7 }), server, root.public), /issuer serial 7/);
    assert.throws(() => checkCertificateChain(Buffer.alloc(0), server, root.public), /no certificate chain/);
  });
});
