import { createCipheriv, createDecipheriv, createHash, hkdfSync } from 'node:crypto';
import { Curve, NOISE_MODE, NOISE_WA_HEADER, proto } from '@whiskeysockets/baileys';
import type { KeyPair } from '@whiskeysockets/baileys';

const TAG_LENGTH = 16;

function sha256(...parts: Uint8Array[]): Buffer {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part);
  return hash.digest();
}

function nonce(counter: number): Buffer {
  const iv = Buffer.alloc(12);
  iv.writeUInt32BE(counter, 8);
  return iv;
}

function sealGcm(key: Uint8Array, counter: number, plaintext: Uint8Array, ad: Uint8Array): Buffer {
  const cipher = createCipheriv('aes-256-gcm', key, nonce(counter));
  cipher.setAAD(ad);
  return Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
}

function openGcm(key: Uint8Array, counter: number, sealed: Uint8Array, ad: Uint8Array): Buffer {
  if (sealed.length < TAG_LENGTH) throw new Error('noise: ciphertext shorter than its tag');
  const decipher = createDecipheriv('aes-256-gcm', key, nonce(counter));
  decipher.setAAD(ad);
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_LENGTH));
  return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_LENGTH)), decipher.final()]);
}

function split(chainingKey: Uint8Array, input: Uint8Array): [Buffer, Buffer] {
  const out = Buffer.from(hkdfSync('sha256', input, chainingKey, Buffer.alloc(0), 64));
  return [out.subarray(0, 32), out.subarray(32)];
}

/** The two keys of an established Noise session, each with its own message counter. */
export class NoiseTransport {
  private sent = 0;
  private received = 0;
  constructor(private readonly sendKey: Buffer, private readonly receiveKey: Buffer) {}
  encrypt(plaintext: Uint8Array): Buffer {
    return sealGcm(this.sendKey, this.sent++, plaintext, Buffer.alloc(0));
  }
  decrypt(ciphertext: Uint8Array): Buffer {
    return openGcm(this.receiveKey, this.received++, ciphertext, Buffer.alloc(0));
  }
}

/** What the client proved in its `clientFinish`: its static (noise) key and its encrypted payload. */
export interface ClientFinish {
  clientStatic: Buffer;
  payload: proto.ClientPayload;
  transport: NoiseTransport;
}

/**
 * The responder side of WhatsApp's `Noise_XX_25519_AESGCM_SHA256` handshake. The prologue is the intro
 * header (`WA`, 6, dictionary version) as in the client; the cipher state keeps one counter for both
 * directions until the next key mix, which is how WhatsApp's clients count during the handshake.
 */
export class NoiseResponder {
  private hash: Buffer = Buffer.from(NOISE_MODE);
  private chainingKey: Buffer = this.hash;
  private key: Buffer = this.hash;
  private counter = 0;
  private readonly ephemeral: KeyPair = Curve.generateKeyPair();
  private clientEphemeral: Buffer = Buffer.alloc(0);

  constructor(private readonly staticKey: KeyPair) {
    this.mixHash(NOISE_WA_HEADER);
  }

  /** Answers a `clientHello` with the `serverHello` (ephemeral, encrypted static key and certificate chain). */
  serverHello(clientHello: Uint8Array, certificateChain: Uint8Array): Buffer {
    const hello = proto.HandshakeMessage.decode(clientHello).clientHello;
    if (!hello?.ephemeral || hello.ephemeral.length !== 32) throw new Error('noise: clientHello without a 32-byte ephemeral key');
    this.clientEphemeral = Buffer.from(hello.ephemeral);
    this.mixHash(this.clientEphemeral);
    this.mixHash(this.ephemeral.public);
    this.mixKey(Curve.sharedKey(this.ephemeral.private, this.clientEphemeral));
    const staticSealed = this.encrypt(this.staticKey.public);
    this.mixKey(Curve.sharedKey(this.staticKey.private, this.clientEphemeral));
    const payload = this.encrypt(certificateChain);
    return Buffer.from(proto.HandshakeMessage.encode({
      serverHello: { ephemeral: this.ephemeral.public, static: staticSealed, payload },
    }).finish());
  }

  /** Reads the `clientFinish`; throws when the client's static key or payload does not authenticate. */
  clientFinish(message: Uint8Array): ClientFinish {
    const finish = proto.HandshakeMessage.decode(message).clientFinish;
    if (!finish?.static || !finish.payload) throw new Error('noise: clientFinish without static key or payload');
    const clientStatic = this.decrypt(finish.static);
    this.mixKey(Curve.sharedKey(this.ephemeral.private, clientStatic));
    const payload = proto.ClientPayload.decode(this.decrypt(finish.payload));
    const [clientWrite, clientRead] = split(this.chainingKey, Buffer.alloc(0));
    return { clientStatic, payload, transport: new NoiseTransport(clientRead, clientWrite) };
  }

  private mixHash(data: Uint8Array): void {
    this.hash = sha256(this.hash, data);
  }

  private mixKey(input: Uint8Array): void {
    const [chainingKey, key] = split(this.chainingKey, input);
    this.chainingKey = chainingKey;
    this.key = key;
    this.counter = 0;
  }

  private encrypt(plaintext: Uint8Array): Buffer {
    const sealed = sealGcm(this.key, this.counter++, plaintext, this.hash);
    this.mixHash(sealed);
    return sealed;
  }

  private decrypt(sealed: Uint8Array): Buffer {
    const plaintext = openGcm(this.key, this.counter++, sealed, this.hash);
    this.mixHash(sealed);
    return plaintext;
  }
}
