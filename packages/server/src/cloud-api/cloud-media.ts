import { createHash, randomBytes } from 'node:crypto';
import type { Request } from 'express';
import { NotFoundError, PayloadTooLargeError, ValidationError, type MediaBlob } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { mediaOf } from '../routes/media.routes.js';

/** What Parley keeps of an upload beside its bytes (in the state repository; the bytes in the media store). */
interface UploadMeta {
  mimeType: string;
  sha256: string;
  size: number;
  fileName?: string;
}

/** What `GET /{version}/{media-id}` describes: an upload, or the media of a stored message. */
export interface CloudMedia extends UploadMeta {
  blob: MediaBlob;
}

/** Upload ids: a prefix no channel's message id has, then 24 random hex digits. */
const UPLOAD_ID = /^pm\.[0-9a-f]{24}$/;
const namespace = (instanceId: string) => `cloud-api:media:${instanceId}`;

/**
 * The Cloud API's media store over Parley's: an upload's bytes go to the media repository (the store
 * sends and `save_media` use) under its id, its description to the state repository. Deleting removes
 * the description (from then on the id is unknown) and then the bytes from the media repository.
 * Media of received and sent messages are reachable by the message id, which is what the meta
 * webhooks link.
 */
export class CloudMediaStore {
  constructor(private readonly ctx: ServerContext) {}

  /** Reads a multipart upload (`file`, `type`, `messaging_product`) of at most `limit` bytes and stores it. */
  async upload(runtime: InstanceRuntime, req: Request, limit: number): Promise<string> {
    const type = req.headers['content-type'] ?? '';
    if (!/^multipart\/form-data\s*;/i.test(type)) throw new ValidationError('the upload must be multipart/form-data with a file part named file');
    const raw = await readBounded(req, limit);
    let form: FormData;
    try {
      // undici's multipart parser (Node's own fetch), over bytes already bounded.
      form = await new Response(new Uint8Array(raw) as Uint8Array<ArrayBuffer>, { headers: { 'content-type': type } }).formData();
    } catch {
      throw new ValidationError('the multipart body could not be parsed');
    }
    if (form.get('messaging_product') !== null && form.get('messaging_product') !== 'whatsapp') {
      throw new ValidationError('messaging_product must be whatsapp');
    }
    const file = form.get('file');
    if (!file || typeof file === 'string') throw new ValidationError('file is required: a file part with its content type');
    const declared = form.get('type');
    const mimeType = (typeof declared === 'string' && declared ? declared : file.type).toLowerCase().split(';')[0]!.trim();
    if (!/^[\w.+-]+\/[\w.+-]+$/.test(mimeType)) throw new ValidationError('type must be the file\'s MIME type (image/jpeg, audio/ogg, …)');
    const data = Buffer.from(await file.arrayBuffer());
    if (data.length === 0) throw new ValidationError('file is empty');
    const id = `pm.${randomBytes(12).toString('hex')}`;
    const meta: UploadMeta = { mimeType, sha256: createHash('sha256').update(data).digest('hex'), size: data.length, ...(file.name ? { fileName: file.name } : {}) };
    await this.ctx.storage.media.put(runtime.id, id, { data, mimetype: mimeType, ...(meta.fileName ? { fileName: meta.fileName } : {}) });
    await this.ctx.storage.state.put(namespace(runtime.id), id, meta);
    return id;
  }

  /** An upload or a message's media by id; 404 `media_not_found`. */
  async get(runtime: InstanceRuntime, id: string): Promise<CloudMedia> {
    if (UPLOAD_ID.test(id)) {
      const meta = await this.ctx.storage.state.get<UploadMeta>(namespace(runtime.id), id);
      const blob = meta ? await this.ctx.storage.media.get(runtime.id, id) : null;
      if (!meta || !blob) throw new NotFoundError(`media ${id}`, 'media_not_found');
      return { ...meta, blob };
    }
    const record = await this.ctx.storage.messages.get(runtime.id, id);
    const blob = record ? await mediaOf(this.ctx, runtime, record) : null;
    if (!blob) throw new NotFoundError(`media ${id}`, 'media_not_found');
    return {
      blob, mimeType: blob.mimetype, size: blob.data.length, sha256: createHash('sha256').update(blob.data).digest('hex'),
      ...(blob.fileName ? { fileName: blob.fileName } : {}),
    };
  }

  /** Deletes an upload (a message's media is the message's: 400). */
  async delete(runtime: InstanceRuntime, id: string): Promise<void> {
    if (!UPLOAD_ID.test(id)) throw new ValidationError(`media ${id} is a message's media, which is deleted with its message; only uploads can be deleted`);
    if (!(await this.ctx.storage.state.delete(namespace(runtime.id), id))) throw new NotFoundError(`media ${id}`, 'media_not_found');
    await this.ctx.storage.media.delete(runtime.id, id);
  }
}

/** The request's bytes, refused (413) past `limit`: a declared length before reading, a stream as it passes it. */
function readBounded(req: Request, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.reject(new PayloadTooLargeError(`the upload is larger than ${limit} bytes`, { limit }));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.pause();
        reject(new PayloadTooLargeError(`the upload is larger than ${limit} bytes`, { limit }));
        return;
      }
      chunks.push(chunk);
    });
    req.once('error', reject);
    req.once('end', () => resolve(Buffer.concat(chunks, size)));
  });
}
