import { createHash, randomBytes } from 'node:crypto';
import type { Request } from 'express';
import { NotFoundError, readMedia, ValidationError, writeMedia, type MediaBlob, type MediaObject, type MessageRecord } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { messageOfMediaId } from '../events/media-ids.js';
import { mediaOf, openMediaOf } from '../routes/media.routes.js';
import { receiveMultipart, type ReceivedFile } from './multipart-upload.js';

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
/** Under the instance's prefix, so that deleting the instance (which clears `<id>:…`) deletes its uploads' descriptions. */
const namespace = (instanceId: string) => `${instanceId}:cloud-api:media`;

/**
 * The Cloud API's media store over Parley's: an upload's bytes go to the media repository (the store
 * sends and `save_media` use) under its id, its description to the state repository. Deleting removes
 * the description (from then on the id is unknown) and then the bytes from the media repository.
 * Media of received and sent messages are reachable by the message id, which is what the meta
 * webhooks link, or by the channel's own id of them where the webhooks carry that (media-ids.ts).
 */
export class CloudMediaStore {
  constructor(private readonly ctx: ServerContext) {}

  /**
   * Reads a multipart upload (`file`, `type`, `messaging_product`) of at most `limit` bytes and
   * stores it, its file streamed to the media repository as it arrives ({@link receiveMultipart},
   * `writeMedia`: whole only with a back end that cannot stream writes). An upload refused after its
   * file was stored (a bad `type`, say) leaves nothing behind.
   */
  async upload(runtime: InstanceRuntime, req: Request, limit: number): Promise<string> {
    const type = req.headers['content-type'] ?? '';
    if (!/^multipart\/form-data\s*;/i.test(type)) throw new ValidationError('the upload must be multipart/form-data with a file part named file');
    const id = `pm.${randomBytes(12).toString('hex')}`;
    let stored = false;
    try {
      const { fields, file } = await receiveMultipart(req, limit, 'file', async (body, description) => {
        const size = await writeMedia(this.ctx.storage.media, runtime.id, id, body, description);
        stored = true;
        return size;
      });
      const meta = uploadMeta(fields, file);
      await this.ctx.storage.state.put(namespace(runtime.id), id, meta);
      return id;
    } catch (err) {
      if (stored) await this.ctx.storage.media.delete(runtime.id, id).catch(() => undefined);
      throw err;
    }
  }

  /** An upload or a message's media by id; 404 `media_not_found`. */
  async get(runtime: InstanceRuntime, id: string): Promise<CloudMedia> {
    if (UPLOAD_ID.test(id)) {
      const meta = await this.ctx.storage.state.get<UploadMeta>(namespace(runtime.id), id);
      const blob = meta ? await this.ctx.storage.media.get(runtime.id, id) : null;
      if (!meta || !blob) throw new NotFoundError(`media ${id}`, 'media_not_found');
      return { ...meta, blob };
    }
    const record = await this.messageOf(runtime, id);
    const blob = record ? await mediaOf(this.ctx, runtime, record) : null;
    if (!blob) throw new NotFoundError(`media ${id}`, 'media_not_found');
    return {
      blob, mimeType: blob.mimetype, size: blob.data.length, sha256: createHash('sha256').update(blob.data).digest('hex'),
      ...(blob.fileName ? { fileName: blob.fileName } : {}),
    };
  }

  /** The bytes of an upload or a message's media by id, streamed from the media store where it streams; 404 `media_not_found`. */
  async open(runtime: InstanceRuntime, id: string): Promise<MediaObject> {
    let media: MediaObject | null = null;
    if (UPLOAD_ID.test(id)) {
      const meta = await this.ctx.storage.state.get<UploadMeta>(namespace(runtime.id), id);
      const stored = meta && (await readMedia(this.ctx.storage.media, runtime.id, id));
      // The description's type is the upload's (`type`, which may follow the file part the blob was stored under).
      media = stored && { ...stored, mimetype: meta!.mimeType };
    } else {
      const record = await this.messageOf(runtime, id);
      media = record && (await openMediaOf(this.ctx, runtime, record));
    }
    if (!media) throw new NotFoundError(`media ${id}`, 'media_not_found');
    return media;
  }

  /** A stored message by its id, or by the channel's own id of its media (a shared reel or post). */
  private async messageOf(runtime: InstanceRuntime, id: string): Promise<MessageRecord | null> {
    const messages = this.ctx.storage.messages;
    const record = await messages.get(runtime.id, id);
    if (record) return record;
    const messageId = await messageOfMediaId(this.ctx.storage.state, runtime.id, id);
    return messageId ? messages.get(runtime.id, messageId) : null;
  }

  /** Deletes an upload (a message's media is the message's: 400). */
  async delete(runtime: InstanceRuntime, id: string): Promise<void> {
    if (!UPLOAD_ID.test(id)) throw new ValidationError(`media ${id} is a message's media, which is deleted with its message; only uploads can be deleted`);
    if (!(await this.ctx.storage.state.delete(namespace(runtime.id), id))) throw new NotFoundError(`media ${id}`, 'media_not_found');
    await this.ctx.storage.media.delete(runtime.id, id);
  }
}

/** An upload's description from its form, or the 400 that refuses it. */
function uploadMeta(fields: Map<string, string>, file: ReceivedFile | undefined): UploadMeta {
  const product = fields.get('messaging_product');
  if (product !== undefined && product !== 'whatsapp') throw new ValidationError('messaging_product must be whatsapp');
  if (!file) throw new ValidationError('file is required: a file part with its content type');
  // Meta's own examples send `type` after the file: the file is stored under its part's type, and this description is what counts.
  const mimeType = (fields.get('type') || file.mimeType).toLowerCase().split(';')[0]!.trim();
  if (!/^[\w.+-]+\/[\w.+-]+$/.test(mimeType)) throw new ValidationError('type must be the file\'s MIME type (image/jpeg, audio/ogg, …)');
  if (file.size === 0) throw new ValidationError('file is empty');
  return { mimeType, sha256: file.sha256, size: file.size, ...(file.fileName ? { fileName: file.fileName } : {}) };
}
