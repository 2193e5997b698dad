import { Readable } from 'node:stream';
import type { MediaBlob, MediaObject } from '../domain/message.js';
import type { MediaRepository } from './repositories.js';

/**
 * Where media bytes live when they do not live in the storage back end: an object store set by a
 * `kind: 'media'` plugin (`@parley/media-s3`). It replaces the storage back end's `media` for every
 * reader and writer (received media saved with `save_media`, uploads, sent media, profile pictures),
 * so it keeps the {@link MediaRepository} contract; failures to reach it throw ServiceUnavailableError
 * (HTTP 503) like the storage's.
 */
export interface MediaStore extends MediaRepository {
  /** Name for logs and the banner (`s3`). */
  readonly name: string;
  /** Where the media lives, without credentials (`s3://bucket/prefix at https://…`), for the banner. */
  readonly location: string;
  /** Called after the storage's `init`: checks the store is usable; throws when it is misconfigured. */
  init?(): Promise<void>;
  /** Called before the storage's `close`. Idempotent. */
  close?(): Promise<void>;
}

/** A blob already in memory as a {@link MediaObject} (its bytes as a one-chunk stream). */
export function mediaObjectOf(blob: MediaBlob): MediaObject {
  return { size: blob.data.length, mimetype: blob.mimetype, ...(blob.fileName === undefined ? {} : { fileName: blob.fileName }), body: Readable.from([blob.data]) };
}

/** A stored blob opened for reading: streamed where `media` can ({@link MediaRepository.open}), else read whole. Null when absent. */
export async function readMedia(media: MediaRepository, instance: string, messageId: string): Promise<MediaObject | null> {
  if (media.open) return media.open(instance, messageId);
  const blob = await media.get(instance, messageId);
  return blob && mediaObjectOf(blob);
}

/**
 * Stores the bytes `body` yields: streamed where `media` can ({@link MediaRepository.putStream}),
 * else collected and written whole. Answers how many bytes were stored; rejects with `body`'s error
 * when it fails.
 */
export async function writeMedia(
  media: MediaRepository, instance: string, messageId: string, body: Readable, description: { mimetype: string; fileName?: string },
): Promise<number> {
  if (media.putStream) return media.putStream(instance, messageId, body, description);
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  const data = Buffer.concat(chunks);
  await media.put(instance, messageId, { data, ...description });
  return data.length;
}
