import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getUrlFromDirectPath } from '@whiskeysockets/baileys';
import type { BaileysSocket } from '../socket.js';

/** How long one product image upload may take (Baileys' own default for catalog images). */
export const PRODUCT_IMAGE_UPLOAD_TIMEOUT_MS = 30_000;

/**
 * Uploads a product image's bytes to WhatsApp's media servers and returns its URL there, which
 * `productCreate`/`productUpdate` pass on as they are.
 *
 * Baileys would upload bytes itself (`uploadingNecessaryImages`), but it writes them to a temporary
 * file without waiting for the write to finish and uploads that file at once: the server gets a
 * truncated file whose hash is not the token, refuses it, and the creation fails with "Media upload
 * failed on all hosts" — most of the time for an image of a few hundred kilobytes. Here the file is
 * complete (written and closed, mode 0600, in a private directory) before the upload starts.
 */
export async function uploadProductImage(socket: BaileysSocket, bytes: Buffer): Promise<{ url: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'parley-product-'));
  try {
    const file = join(dir, 'image');
    await writeFile(file, bytes, { mode: 0o600 });
    const { directPath } = await socket.waUploadToServer(file, {
      mediaType: 'product-catalog-image',
      fileEncSha256B64: createHash('sha256').update(bytes).digest('base64'),
      timeoutMs: PRODUCT_IMAGE_UPLOAD_TIMEOUT_MS,
    });
    return { url: getUrlFromDirectPath(directPath) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
