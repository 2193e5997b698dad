import { randomBytes } from 'node:crypto';
import { createServer } from 'node:https';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sha256 } from './crypto.js';
import type { MediaCertificate } from './certificate.js';
import { serveBlob, type MediaRequest, type MediaServing } from './serving.js';

/** Largest upload the host takes (WhatsApp's documents go to 2 GB; a test fixture keeps them in memory). */
export const MAX_UPLOAD_BYTES = 64 * 1024 * 1024;
/** Most files the host keeps; the oldest go first. */
export const MAX_BLOBS = 1000;
/** Downloads the host remembers ({@link MediaHost.requests}); the oldest go first. */
export const MAX_REQUESTS = 1000;
/** How long a `media_conn` auth token is valid, in seconds (WhatsApp answers a few minutes to hours). */
export const MEDIA_CONN_TTL_S = 3600;

/**
 * The media host on loopback over HTTPS: `POST /mms/<type>/<token>?auth=…&token=…` or `/product/image/<token>` (Baileys
 * getWAUploadToServer) stores an encrypted file whose SHA-256 is the token and answers `{ url, direct_path }`;
 * `GET <direct_path>` returns it, as the file's {@link MediaServing} says (whole, by default). The files are
 * opaque ciphertext: the host never has their keys.
 */
export class MediaHost {
  readonly auth = randomBytes(24).toString('base64url');
  private readonly blobs = new Map<string, Buffer>();
  private readonly servings = new Map<string, MediaServing>();
  private readonly downloads: MediaRequest[] = [];
  private readonly server: Server;

  constructor(certificate: MediaCertificate, private readonly host = '127.0.0.1') {
    this.server = createServer({ cert: certificate.cert, key: certificate.key }, (req, res) => {
      this.handle(req, res).catch(() => answer(res, 500, { error: 'internal' }));
    });
  }

  async listen(port = 0): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(port, this.host, resolve));
  }

  /** `host:port`, as `media_conn` names it (`<host hostname>`). */
  get hostname(): string {
    return `${this.host}:${(this.server.address() as AddressInfo).port}`;
  }

  /** Stores an encrypted file, served as `serving` says, and returns its direct path (what messages carry as `directPath`). */
  put(blob: Buffer, type: string, serving?: MediaServing): string {
    const directPath = `/v/t62.${type}/${randomBytes(12).toString('hex')}.enc?ccb=11-4`;
    this.blobs.set(pathOf(directPath), blob);
    if (serving) this.servings.set(pathOf(directPath), serving);
    while (this.blobs.size > MAX_BLOBS) this.remove(this.blobs.keys().next().value!);
    return directPath;
  }

  /** Removes the file at a direct path or URL on this host (later downloads get 404); whether there was one. */
  remove(directPathOrUrl: string): boolean {
    const path = pathOf(directPathOrUrl.replace(/^https:\/\/[^/]+/, ''));
    this.servings.delete(path);
    return this.blobs.delete(path);
  }

  /** The downloads the host answered, oldest first (at most {@link MAX_REQUESTS}). */
  requests(): MediaRequest[] {
    return this.downloads.map((request) => ({ ...request }));
  }

  /** The stored file at a direct path or URL on this host. */
  get(directPathOrUrl: string): Buffer | undefined {
    return this.blobs.get(pathOf(directPathOrUrl.replace(/^https:\/\/[^/]+/, '')));
  }

  url(directPath: string): string {
    return `https://${this.hostname}${directPath}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'https://host');
    if (req.method === 'GET') {
      const blob = this.blobs.get(url.pathname);
      if (!blob) return answer(res, 404, { error: 'not found' });
      const request: MediaRequest = { path: url.pathname, size: blob.length, written: 0 };
      this.downloads.push(request);
      if (this.downloads.length > MAX_REQUESTS) this.downloads.shift();
      serveBlob(res, blob, this.servings.get(url.pathname) ?? {}, request);
      return;
    }
    // Message media under /mms/<type>/, catalog images under /product/image/ (Baileys' MEDIA_PATH_MAP).
    const upload = /^\/(?:mms\/([a-z-]+)|product\/image)\/([A-Za-z0-9_-]+)$/.exec(url.pathname);
    if (req.method !== 'POST' || !upload) return answer(res, 404, { error: 'not found' });
    if (url.searchParams.get('auth') !== this.auth) return answer(res, 401, { error: 'bad auth' });
    const body = await readBounded(req);
    if (!body) return answer(res, 413, { error: 'too large' });
    // The token is the file's encrypted SHA-256 (base64url, unpadded): the host refuses a corrupted upload.
    if (sha256(body).toString('base64url') !== upload[2]) return answer(res, 400, { error: 'hash mismatch' });
    const directPath = this.put(body, upload[1] ?? 'product-catalog-image');
    answer(res, 200, { url: this.url(directPath), direct_path: directPath });
  }
}

function pathOf(directPath: string): string {
  return directPath.split('?')[0]!;
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

async function readBounded(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_UPLOAD_BYTES) {
      req.destroy();
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}
