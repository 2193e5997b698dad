import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { MessageRecord } from '@parley/core';
import type { ResolveHost } from '@parley/net';
import { encryptedStream } from '@whiskeysockets/baileys';
import { listenOnLoopback } from './loopback-server.js';

/** The host name of WhatsApp's media CDN, which the certificate of {@link cdnTls} names. */
export const CDN_HOST = 'mmg.whatsapp.net';

// The certificate lives with the package's tests; this module runs from dist/src/testing.
const fixtures = new URL('../../../test/fixtures/', import.meta.url);

/** The TLS identity of the fake CDN: a certificate for mmg.whatsapp.net, and the CA clients must trust. */
export async function cdnTls(): Promise<{ key: string; cert: string }> {
  return {
    key: await readFile(new URL('media-host.key.pem', fixtures), 'utf8'),
    cert: await readFile(new URL('media-host.cert.pem', fixtures), 'utf8'),
  };
}

/** A resolver answering fixed addresses per name, and ENOTFOUND for any other name (tests never ask the real DNS). */
export function fixedResolver(names: Record<string, string[]>): ResolveHost {
  return async (host) => {
    const addresses = names[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses;
  };
}

/** A media file as WhatsApp stores it: encrypted by Baileys with a fresh media key, and what a message says of it. */
export interface EncryptedMedia {
  plain: Buffer;
  body: Buffer;
  mediaKey: Buffer;
  fileSha256: Buffer;
  fileEncSha256: Buffer;
}

export async function encryptMedia(plain: Buffer, type: 'image' | 'document' = 'document'): Promise<EncryptedMedia> {
  const enc = await encryptedStream(plain, type);
  const body = await readFile(enc.encFilePath);
  await rm(enc.encFilePath, { force: true });
  return { plain, body, mediaKey: enc.mediaKey, fileSha256: enc.fileSha256, fileEncSha256: enc.fileEncSha256 };
}

/** Where a message says its media is: `path` on the CDN at `port`, `fileLength` bytes (what the sender declared). */
export interface CdnLink {
  port: number;
  path: string;
  fileLength: number;
}

/** What a media message of WhatsApp says of a file on the CDN, as JSON (Parley's records). */
function mediaFields(media: EncryptedMedia, link: CdnLink) {
  return {
    url: `https://${CDN_HOST}:${link.port}${link.path}?ccb=11-4`, directPath: `${link.path}?ccb=11-4`,
    mediaKey: media.mediaKey.toString('base64'), fileSha256: media.fileSha256.toString('base64'),
    fileEncSha256: media.fileEncSha256.toString('base64'), fileLength: String(link.fileLength),
  };
}

const messageId = () => `3EB0${randomBytes(8).toString('hex').toUpperCase()}`;

/** A received document message from `remoteJid` (a record, as stored) pointing at a file on the CDN. */
export function documentMessage(remoteJid: string, media: EncryptedMedia, link: CdnLink): MessageRecord {
  return {
    key: { remoteJid, fromMe: false, id: messageId() }, messageTimestamp: '1735700002', status: 'DELIVERY_ACK',
    message: { documentMessage: { ...mediaFields(media, link), mimetype: 'application/pdf', fileName: 'report.pdf' } },
  };
}

/** One request the CDN answered: how much of the body it wrote, and whether the client closed the connection first. */
export interface CdnRequest {
  path: string;
  total: number;
  written: number;
  /** Set once the response closed: true when it closed before the whole body was written. */
  closedEarly?: boolean;
}

/** How the CDN serves one path. */
export interface CdnFile {
  body: Buffer;
  /** Send `Content-Length` (WhatsApp's CDN does); without it the body is chunked. */
  contentLength: boolean;
  /** Reset the connection after this many bytes (a CDN or network failing mid-body). */
  resetAfter?: number;
  /** Write nothing more after this many bytes, the connection left open (0: the headers only). */
  stallAfter?: number;
  /** Never send the headers, the connection left open. */
  silent?: boolean;
  /** Write the body `bytes` at a time, one write every `everyMs` (a host answering slowly on purpose). */
  drip?: { bytes: number; everyMs: number };
}

export interface FakeCdn {
  port: number;
  requests: CdnRequest[];
  /** TLS connections accepted. */
  connections(): number;
  /** Waits (bounded) until every request's response has closed. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A stand-in for WhatsApp's media CDN (mmg.whatsapp.net, over TLS): serves encrypted files in
 * 64 KiB writes that wait for the client to read (as a real server's socket does), and records
 * how much of each body was written before the connection closed.
 */
export async function startCdn(tls: { key: string; cert: string }, files: Record<string, CdnFile>): Promise<FakeCdn> {
  const requests: CdnRequest[] = [];
  let connections = 0;
  const server = createServer(tls, (req, res) => {
    const path = (req.url ?? '').split('?')[0]!;
    const file = files[path];
    if (!file) {
      res.writeHead(404, { 'content-length': 0 }).end();
      return;
    }
    const seen: CdnRequest = { path, total: file.body.length, written: 0 };
    requests.push(seen);
    res.on('close', () => { seen.closedEarly = seen.written < seen.total || !res.writableFinished; });
    if (file.silent) return;
    res.writeHead(200, { 'content-type': 'application/octet-stream', ...(file.contentLength ? { 'content-length': file.body.length } : {}) });
    const step = file.drip?.bytes ?? 64 * 1024;
    const push = () => {
      while (!res.destroyed && seen.written < file.body.length) {
        if (file.resetAfter !== undefined && seen.written >= file.resetAfter) {
          res.socket?.destroy();
          return;
        }
        if (file.stallAfter !== undefined && seen.written >= file.stallAfter) return;
        if (file.drip && seen.written > 0 && !due) {
          dripping = setTimeout(() => { due = true; push(); }, file.drip.everyMs);
          return;
        }
        due = false;
        const chunk = file.body.subarray(seen.written, seen.written + step);
        seen.written += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', push);
          return;
        }
      }
      if (!res.destroyed) res.end();
    };
    let dripping: NodeJS.Timeout | undefined;
    let due = false;
    res.on('close', () => clearTimeout(dripping));
    push();
  });
  server.on('secureConnection', () => { connections++; });
  const { port, close } = await listenOnLoopback(server);
  return {
    port,
    requests,
    connections: () => connections,
    settled: async () => {
      for (let i = 0; i < 200 && requests.some((r) => r.closedEarly === undefined); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    },
    close,
  };
}
