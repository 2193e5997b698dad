import { Curve, DEFAULT_ORIGIN, makeNoiseHandler, NOISE_WA_HEADER, proto, WA_CERT_DETAILS } from '@whiskeysockets/baileys';
import WebSocket from 'ws';
import { verifySignature } from 'libsignal/src/curve.js';
import type { Logger } from '@parley/core';
import type { DisconnectInfo } from './disconnect-reason.js';
import { baileysLogger } from './logger-bridge.js';

/** WhatsApp's own root key, as Baileys pins it before anything changes the pin. */
export const WHATSAPP_ROOT_KEY = Buffer.from(WA_CERT_DETAILS.PUBLIC_KEY);

/** The server proved its Noise key with a certificate chain the trusted root did not sign. */
export class ServerCertificateError extends Error {}

/**
 * An XEdDSA signature check that answers libsignal's verdict. Baileys 7.0.0-rc14's `Curve.verify`
 * cannot be used: it returns true whenever libsignal's `verifySignature` does not throw, and that
 * function reports a bad signature by returning false (Utils/crypto.js), so Baileys' own check of the
 * server's chain (Utils/noise-handler.js `processHandshake`) accepts any signer.
 */
function signedBy(publicKey: Uint8Array | null | undefined, message: Uint8Array | null | undefined, signature: Uint8Array | null | undefined): boolean {
  if (!publicKey || publicKey.length !== 32 || !message || signature?.length !== 64) return false;
  try {
    return verifySignature(Buffer.concat([Buffer.from([5]), publicKey]), Buffer.from(message), Buffer.from(signature)) === true;
  } catch {
    return false;
  }
}

/**
 * Checks a decrypted `CertChain` as WhatsApp clients do: the intermediate signed by `root` and issued
 * under WhatsApp's root serial, the leaf signed by the intermediate, and the leaf's key the server's
 * static Noise key. Throws {@link ServerCertificateError} naming what failed.
 */
export function checkCertificateChain(chain: Uint8Array, serverStatic: Uint8Array, root: Uint8Array): void {
  const { intermediate, leaf } = proto.CertChain.decode(chain);
  if (!intermediate?.details || !leaf?.details) throw new ServerCertificateError('the server sent no certificate chain');
  const issuer = proto.CertChain.NoiseCertificate.Details.decode(intermediate.details);
  const server = proto.CertChain.NoiseCertificate.Details.decode(leaf.details);
  if (!signedBy(root, intermediate.details, intermediate.signature)) {
    throw new ServerCertificateError(`the server's certificate is not signed by the trusted root key (${Buffer.from(root).toString('base64')}): `
      + 'a WhatsApp simulator needs its root key in the channel options (serverRootKey, or the simulator option that starts one in process)');
  }
  if (issuer.issuerSerial !== WA_CERT_DETAILS.SERIAL) throw new ServerCertificateError(`the server's intermediate certificate names issuer serial ${issuer.issuerSerial}, not the root's`);
  if (!signedBy(issuer.key, leaf.details, leaf.signature)) throw new ServerCertificateError('the server\'s leaf certificate is not signed by its intermediate certificate');
  if (!server.key || !Buffer.from(server.key).equals(Buffer.from(serverStatic))) throw new ServerCertificateError('the server\'s certificate does not certify the key it uses');
}

/**
 * Opens the start of a WhatsApp Noise handshake with the server at `url` (client hello; the server
 * hello carries its static key and certificate chain, encrypted) with Baileys' own Noise handler,
 * checks the chain against `root` ({@link checkCertificateChain}) and closes. Resolves when the chain
 * is valid or when the server could not be asked (the socket itself then reports the network error);
 * rejects with {@link ServerCertificateError} when the chain is not trusted.
 */
export async function checkServerCertificate(url: string, root: Uint8Array, timeoutMs: number, logger: Logger): Promise<void> {
  const ephemeral = Curve.generateKeyPair();
  const noise = makeNoiseHandler({ keyPair: ephemeral, NOISE_HEADER: NOISE_WA_HEADER, logger: baileysLogger(logger, 'silent') });
  const hello = await new Promise<proto.HandshakeMessage.IServerHello | undefined>((resolve) => {
    // `ws`, as Baileys' own socket, with WhatsApp Web's origin.
    const ws = new WebSocket(url, { origin: DEFAULT_ORIGIN, handshakeTimeout: timeoutMs });
    const done = (answer: proto.HandshakeMessage.IServerHello | undefined) => {
      clearTimeout(timer);
      ws.terminate();
      resolve(answer);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    ws.on('open', () => ws.send(noise.encodeFrame(proto.HandshakeMessage.encode({ clientHello: { ephemeral: ephemeral.public } }).finish())));
    ws.on('error', () => done(undefined));
    ws.on('close', () => done(undefined));
    ws.on('message', (data: Buffer) => {
      noise.decodeFrame(data, (frame) => done(proto.HandshakeMessage.decode(frame as Uint8Array).serverHello ?? undefined)).catch(() => done(undefined));
    });
  });
  if (!hello?.ephemeral || !hello.static || !hello.payload) {
    logger.debug({ url }, 'the server hello could not be read; the socket reports why');
    return;
  }
  try {
    noise.authenticate(hello.ephemeral);
    noise.mixIntoKey(Curve.sharedKey(ephemeral.private, hello.ephemeral));
    const serverStatic = noise.decrypt(hello.static);
    noise.mixIntoKey(Curve.sharedKey(ephemeral.private, serverStatic));
    checkCertificateChain(noise.decrypt(hello.payload), serverStatic, root);
  } catch (err) {
    if (err instanceof ServerCertificateError) throw err;
    throw new ServerCertificateError(`the server's hello does not decrypt or parse as WhatsApp's (${(err as Error).message})`);
  }
}

/** Close code of a refused certificate chain: Baileys' own for a failed chain check (`Boom` 400 in `processHandshake`). */
const UNTRUSTED_SERVER_CODE = 400;

/**
 * Before a socket to a custom endpoint (`webSocketUrl`) is made: the server's chain checked against
 * `serverRoot` (WhatsApp's root unless the options name another). Answers the final close to report
 * when the chain is not trusted, else undefined. Instances behind a proxy are not checked (the check
 * dials the endpoint directly, which a proxy is there to prevent).
 */
export async function untrustedServer(
  options: { webSocketUrl?: string; serverRoot?: Buffer; connectTimeoutMs: number }, proxied: boolean, logger: Logger,
): Promise<DisconnectInfo | undefined> {
  if (!options.webSocketUrl || !options.serverRoot || proxied) return undefined;
  try {
    await checkServerCertificate(options.webSocketUrl, options.serverRoot, options.connectTimeoutMs, logger);
    return undefined;
  } catch (err) {
    if (!(err instanceof ServerCertificateError)) throw err;
    return { code: UNTRUSTED_SERVER_CODE, reason: 'untrustedCertificate', cause: 'tls', message: `certificate error: ${err.message}`, final: true };
  }
}

/**
 * Pins `root` as Baileys' trusted root (`WA_CERT_DETAILS.PUBLIC_KEY`, one per process) for a server
 * that is not WhatsApp, so that Baileys' own chain check names the same root as ours the day it works.
 * Answers a function that puts the previous pin back.
 */
export function pinServerRoot(root: Buffer): () => void {
  const previous = WA_CERT_DETAILS.PUBLIC_KEY;
  WA_CERT_DETAILS.PUBLIC_KEY = Buffer.from(root);
  return () => {
    WA_CERT_DETAILS.PUBLIC_KEY = previous;
  };
}
