import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tls from 'node:tls';

/** The media host's TLS identity: a self-signed certificate (its own trust anchor) for 127.0.0.1 and localhost. */
export interface MediaCertificate {
  cert: string;
  key: string;
}

/**
 * Makes a fresh self-signed P-256 certificate valid for two days with the `openssl` command (Node has no
 * API that issues X.509 certificates; openssl is on every CI image). The certificate is its own CA
 * (`CA:true`), so a process trusts the media host by adding it to its CA list.
 */
export function createMediaCertificate(): MediaCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'whatsapp-sim-media-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-subj', '/CN=whatsapp-sim media host',
      '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-addext', 'basicConstraints=critical,CA:true',
    ], { stdio: 'pipe' });
    return { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  } catch (error) {
    throw new Error(`could not make the media host's certificate with openssl: ${(error as Error).message}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Adds the media host's certificate to the calling process's default CA list (`tls.setDefaultCACertificates`,
 * Node ≥ 22.15), which both `https.request` (Baileys' uploads) and `fetch` (its downloads) use, and returns
 * a function that restores the previous list. In another process, start it with
 * `NODE_EXTRA_CA_CERTS=<file with the certificate>` instead.
 */
export function trustSimulatorMedia(certPem: string): () => void {
  // Newer than the @types/node the workspace builds with.
  const store = tls as typeof tls & { getCACertificates?(type: 'default'): string[]; setDefaultCACertificates?(certs: string[]): void };
  if (!store.getCACertificates || !store.setDefaultCACertificates) throw new Error('trustSimulatorMedia needs Node 22.15 or later (tls.setDefaultCACertificates)');
  const previous = store.getCACertificates('default');
  store.setDefaultCACertificates([...previous, certPem]);
  return () => store.setDefaultCACertificates!(previous);
}
