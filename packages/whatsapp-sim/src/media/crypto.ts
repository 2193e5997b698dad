import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { getMediaKeys } from '@whiskeysockets/baileys';
import type { MediaType } from '@whiskeysockets/baileys';

/** An encrypted media file as WhatsApp stores it, and the fields a message carries to decrypt it. */
export interface EncryptedMedia {
  /** AES-256-CBC ciphertext followed by the first 10 bytes of its HMAC-SHA256. */
  blob: Buffer;
  mediaKey: Buffer;
  fileSha256: Buffer;
  fileEncSha256: Buffer;
  fileLength: number;
}

const MAC_LENGTH = 10;

/**
 * WhatsApp's media encryption: keys from HKDF-SHA256 of a random 32-byte media key with the type's info
 * string (Baileys getMediaKeys), AES-256-CBC with PKCS#7, and a 10-byte HMAC-SHA256 over iv + ciphertext
 * appended (whatsmeow upload.go / download.go describe the same layout). The iv comes from the key, so the
 * same file under the same key encrypts to the same blob: what a phone uploads again on a media retry.
 */
export async function encryptMedia(plain: Buffer, type: MediaType, mediaKey: Buffer = randomBytes(32)): Promise<EncryptedMedia> {
  const { iv, cipherKey, macKey } = await getMediaKeys(mediaKey, type);
  const cipher = createCipheriv('aes-256-cbc', cipherKey, iv);
  const enc = Buffer.concat([cipher.update(plain), cipher.final()]);
  const mac = createHmac('sha256', macKey!).update(iv).update(enc).digest().subarray(0, MAC_LENGTH);
  const blob = Buffer.concat([enc, mac]);
  return { blob, mediaKey, fileSha256: sha256(plain), fileEncSha256: sha256(blob), fileLength: plain.length };
}

/** Checks the MAC and the plaintext's hash, and decrypts; throws on any mismatch. */
export async function decryptMedia(blob: Buffer, mediaKey: Uint8Array, type: MediaType, fileSha256?: Uint8Array | null): Promise<Buffer> {
  const { iv, cipherKey, macKey } = await getMediaKeys(mediaKey, type);
  const enc = blob.subarray(0, blob.length - MAC_LENGTH);
  const mac = createHmac('sha256', macKey!).update(iv).update(enc).digest().subarray(0, MAC_LENGTH);
  if (blob.length <= MAC_LENGTH || !timingSafeEqual(mac, blob.subarray(blob.length - MAC_LENGTH))) throw new Error('media MAC mismatch');
  const decipher = createDecipheriv('aes-256-cbc', cipherKey, iv);
  const plain = Buffer.concat([decipher.update(enc), decipher.final()]);
  if (fileSha256?.length && !sha256(plain).equals(Buffer.from(fileSha256))) throw new Error('media file hash mismatch');
  return plain;
}

export function sha256(data: Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}
