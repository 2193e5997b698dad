import { scanPage, type MediaBlob, type MediaRepository, type ScanPage, type ScanRequest } from '@parley/core';
import { keysAfter, Partitions } from '../partitions.js';

/** A blob with its own copy of the bytes; `fileName` stays absent when not given. */
function copyBlob(blob: MediaBlob): MediaBlob {
  return { data: Buffer.from(blob.data), mimetype: blob.mimetype, ...(blob.fileName === undefined ? {} : { fileName: blob.fileName }) };
}

export class MemoryMediaRepository implements MediaRepository {
  private readonly blobs = new Partitions<MediaBlob>();

  async put(instance: string, messageId: string, blob: MediaBlob): Promise<void> {
    this.blobs.of(instance).set(messageId, copyBlob(blob));
  }

  async get(instance: string, messageId: string): Promise<MediaBlob | null> {
    const blob = this.blobs.peek(instance).get(messageId);
    return blob ? copyBlob(blob) : null;
  }

  async delete(instance: string, messageId: string): Promise<boolean> {
    return this.blobs.existing(instance)?.delete(messageId) ?? false;
  }

  async clear(instance: string): Promise<void> {
    this.blobs.delete(instance);
  }

  async scanIds(instance: string, request: ScanRequest): Promise<ScanPage<string>> {
    return scanPage(keysAfter(this.blobs.peek(instance), request.after, request.limit), request.limit, (id) => id);
  }
}
