import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import {
  assertUrlAllowed, guardedAgents, PayloadTooLargeError, ValidationError, type GuardedAgents, type MediaInput,
} from '@parley/core';

/** Which media a field accepts; decides the content-type check. */
export type MediaKind = 'image' | 'audio' | 'video' | 'document' | 'sticker';

const ACCEPT: Record<MediaKind, (type: string) => boolean> = {
  image: (t) => t.startsWith('image/'),
  sticker: (t) => t === 'image/webp' || t === 'image/png' || t === 'image/gif',
  audio: (t) => t.startsWith('audio/') || t === 'application/ogg' || t === 'video/ogg',
  video: (t) => t.startsWith('video/'),
  document: (t) => t.length > 0,
};

/** Limits of {@link MediaResolver}. */
export interface MediaLimits {
  maxBytes: number;
  timeoutMs: number;
  allowPrivateUrls: boolean;
  /** Redirects followed, each re-validated (default 3). */
  maxRedirects?: number;
}

function mimeOf(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * Turns user-supplied media (a URL or a base64 data URI) into bytes, safely: http/https only,
 * private addresses refused at connect time unless allowed, a size limit while streaming, an
 * overall time-out, and a content-type check against what the field accepts. Every failure is a
 * 400 (or 413) naming the field; nothing is stored before the media resolved.
 */
export class MediaResolver {
  /** Every fetch and redirect dials through these: the address actually connected to is checked. */
  private readonly agents: GuardedAgents;

  constructor(private readonly limits: MediaLimits) {
    this.agents = guardedAgents(limits.allowPrivateUrls);
  }

  /** Resolves `value`: a `data:` URI is decoded, anything else is fetched as a URL. */
  async resolve(value: string, field: string, kind: MediaKind, fileName?: string): Promise<MediaInput> {
    return value.startsWith('data:') ? this.fromDataUri(value, field, kind, fileName) : this.fromUrl(value, field, kind, fileName);
  }

  /** Decodes a base64 data URI with the size limit. */
  fromDataUri(uri: string, field: string, kind: MediaKind, fileName?: string): MediaInput {
    const match = /^data:([\w.+-]+\/[\w.+-]+)(?:;[\w-]+=[\w.-]+)*;base64,([A-Za-z0-9+/=\s]*)$/.exec(uri);
    if (!match) throw new ValidationError(`${field} must be a base64 data URI (data:<mime>;base64,<data>)`);
    const mimetype = match[1]!.toLowerCase();
    const b64 = match[2]!.replace(/\s/g, '');
    if (Math.floor((b64.length * 3) / 4) > this.limits.maxBytes + 2) {
      throw new PayloadTooLargeError(`${field} is larger than ${this.limits.maxBytes} bytes`, { field, limit: this.limits.maxBytes });
    }
    const data = Buffer.from(b64, 'base64');
    if (data.length === 0) throw new ValidationError(`${field} is empty`);
    if (data.length > this.limits.maxBytes) throw new PayloadTooLargeError(`${field} is larger than ${this.limits.maxBytes} bytes`, { field, limit: this.limits.maxBytes });
    if (!ACCEPT[kind](mimetype)) throw new ValidationError(`${field} has content type ${mimetype}, which is not a valid ${kind}`);
    return { data, mimetype, fileName, sha256: createHash('sha256').update(data).digest('hex') };
  }

  /** Fetches a URL with the limits. */
  async fromUrl(raw: string, field: string, kind: MediaKind, fileName?: string): Promise<MediaInput> {
    if (raw.length > 4096) throw new ValidationError(`${field} must be a URL of at most 4096 characters, or a base64 data URI`);
    let url = await assertUrlAllowed(raw, { field, allowPrivate: this.limits.allowPrivateUrls, resolve: false });
    const deadline = Date.now() + this.limits.timeoutMs;
    for (let hop = 0; ; hop++) {
      const answer = await this.get(url, field, deadline);
      if ('redirect' in answer) {
        if (hop >= (this.limits.maxRedirects ?? 3)) throw new ValidationError(`${field} redirects too many times`);
        url = await assertUrlAllowed(new URL(answer.redirect, url).href, { field, allowPrivate: this.limits.allowPrivateUrls, resolve: false });
        continue;
      }
      if (!ACCEPT[kind](answer.mimetype)) {
        throw new ValidationError(`${field} has content type ${answer.mimetype || 'none'}, which is not a valid ${kind}`);
      }
      const name = fileName ?? (decodeURIComponent(url.pathname.split('/').pop() ?? '') || undefined);
      return { data: answer.data, mimetype: answer.mimetype, fileName: name, sourceUrl: raw, sha256: createHash('sha256').update(answer.data).digest('hex') };
    }
  }

  private get(url: URL, field: string, deadline: number): Promise<{ data: Buffer; mimetype: string } | { redirect: string }> {
    const secure = url.protocol === 'https:';
    const client = secure ? https : http;
    const remaining = deadline - Date.now();
    if (remaining <= 0) return Promise.reject(new ValidationError(`${field} could not be fetched: timed out`));
    return new Promise((resolve, reject) => {
      const fail = (message: string) => reject(new ValidationError(`${field} could not be fetched: ${message}`));
      const req = client.get(url, { agent: secure ? this.agents.https : this.agents.http, timeout: remaining, headers: { 'user-agent': 'Parley media fetcher' } }, (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location) {
          res.resume();
          resolve({ redirect: res.headers.location });
          return;
        }
        if (status < 200 || status >= 300) {
          res.resume();
          fail(`HTTP ${status}`);
          return;
        }
        const declared = Number(res.headers['content-length'] ?? 0);
        if (declared > this.limits.maxBytes) {
          res.destroy();
          reject(new PayloadTooLargeError(`${field} is larger than ${this.limits.maxBytes} bytes`, { field, limit: this.limits.maxBytes }));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > this.limits.maxBytes) {
            res.destroy();
            reject(new PayloadTooLargeError(`${field} is larger than ${this.limits.maxBytes} bytes`, { field, limit: this.limits.maxBytes }));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => {
          if (size === 0) fail('empty body');
          else resolve({ data: Buffer.concat(chunks), mimetype: mimeOf(res.headers['content-type']) });
        });
        res.on('error', (err) => fail(err.message));
      });
      req.on('timeout', () => req.destroy(new Error('timed out')));
      req.on('error', (err: NodeJS.ErrnoException) =>
        fail(err.code === 'EPRIVATEADDR' ? 'it points to a private network address' : err.message));
    });
  }
}
