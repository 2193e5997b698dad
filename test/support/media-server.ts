import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A file the media server answers: bytes, content type, and optionally another status or a redirect. */
export interface ServedFile {
  body?: Buffer;
  type?: string;
  status?: number;
  location?: string;
}

/** A local HTTP server on 127.0.0.1 that serves test media and counts requests per path. */
export class MediaServer {
  readonly hits = new Map<string, number>();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    private readonly files: Map<string, ServedFile>,
  ) {}

  static async start(files: Record<string, ServedFile> = {}): Promise<MediaServer> {
    const table = new Map(Object.entries(files));
    let self: MediaServer | undefined;
    const server = http.createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      self!.hits.set(path, (self!.hits.get(path) ?? 0) + 1);
      const file = table.get(path);
      if (!file) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      if (file.location) {
        res.writeHead(file.status ?? 302, { location: file.location }).end();
        return;
      }
      const body = file.body ?? Buffer.alloc(0);
      res.writeHead(file.status ?? 200, { 'content-type': file.type ?? 'application/octet-stream', 'content-length': body.length }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    self = new MediaServer(server, `http://127.0.0.1:${port}`, table);
    return self;
  }

  /** Adds or replaces a served file. */
  serve(path: string, file: ServedFile): string {
    this.files.set(path, file);
    return `${this.url}${path}`;
  }

  hitsOf(path: string): number {
    return this.hits.get(path) ?? 0;
  }

  /** Requests received on every path. */
  totalHits(): number {
    return [...this.hits.values()].reduce((a, b) => a + b, 0);
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Deterministic bytes that start with a format's signature, `size` bytes long. */
export function sampleBytes(signature: string | Buffer, size: number, seed = 'parley'): Buffer {
  const head = typeof signature === 'string' ? Buffer.from(signature, 'latin1') : signature;
  const chunks: Buffer[] = [head];
  let total = head.length;
  for (let i = 0; total < size; i++) {
    const block = createHash('sha256').update(`${seed}:${i}`).digest();
    chunks.push(block);
    total += block.length;
  }
  return Buffer.concat(chunks).subarray(0, size);
}

/** Media samples with the signatures of their formats. */
export const SAMPLES = {
  png: sampleBytes(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), 1200, 'png'),
  jpeg: sampleBytes(Buffer.from([0xff, 0xd8, 0xff, 0xe0]), 900, 'jpeg'),
  ogg: sampleBytes('OggS', 2048, 'ogg'),
  mp3: sampleBytes('ID3', 1500, 'mp3'),
  mp4: sampleBytes('\u0000\u0000\u0000\u0018ftypmp42', 4096, 'mp4'),
  pdf: sampleBytes('%PDF-1.4\n', 3000, 'pdf'),
  /** A WebP with an animation chunk. */
  animatedWebp: Buffer.concat([Buffer.from('RIFF\u0000\u0010\u0000\u0000WEBPVP8X\u000a\u0000\u0000\u0000', 'latin1'), sampleBytes('ANIM', 700, 'webp-anim')]),
  /** A still WebP. */
  webp: Buffer.concat([Buffer.from('RIFF\u0000\u0010\u0000\u0000WEBPVP8 ', 'latin1'), sampleBytes('\u0000', 600, 'webp')]),
} as const;

/** The samples a media server serves for send suites: `/a.png`, `/a.mp4`, `/a.mp3`, `/a.ogg`, `/a.pdf`, `/a.webp`. */
export const SAMPLE_FILES: Record<string, ServedFile> = {
  '/a.png': { body: SAMPLES.png, type: 'image/png' }, '/a.mp4': { body: SAMPLES.mp4, type: 'video/mp4' },
  '/a.mp3': { body: SAMPLES.mp3, type: 'audio/mpeg' }, '/a.ogg': { body: SAMPLES.ogg, type: 'audio/ogg' },
  '/a.pdf': { body: SAMPLES.pdf, type: 'application/pdf' }, '/a.webp': { body: SAMPLES.webp, type: 'image/webp' },
};

/** Hex SHA-256. */
export function sha256Hex(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Base64 SHA-256, as records carry `fileSha256`. */
export function sha256Base64(data: Buffer): string {
  return createHash('sha256').update(data).digest('base64');
}

/** A base64 data URI. */
export function dataUri(mime: string, data: Buffer): string {
  return `data:${mime};base64,${data.toString('base64')}`;
}
