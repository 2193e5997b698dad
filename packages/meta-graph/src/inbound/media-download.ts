import { assertUrlAllowed, MediaDownloadTimeoutError, MediaTooLargeError, ParleyError, UpstreamError, ValidationError, type MediaBlob, type MessageRecord } from '@parley/core';
import { guardedGet, GuardedGetError } from '@parley/net';

/** Limits of {@link MetaMediaDownloader}. */
export interface MetaMediaLimits {
  /** Largest attachment downloaded: over it 413 `media_too_large`. */
  maxBytes: number;
  /** The setting `maxBytes` comes from, named in that error; default `media.maxDownloadBytes`. */
  setting?: string;
  /** Deadline of one whole download (the host's `media.downloadTimeoutMs`): past it 504 `media_download_timeout`. */
  timeoutMs: number;
  /** Longest wait for the next bytes (the host's `media.downloadIdleMs`): past it the same 504. */
  idleMs: number;
  /** True only when the host allows private URLs (tests with a loopback CDN). */
  allowPrivate: boolean;
}

/** The media members of a received message's record that carry Meta's CDN link. */
const MEDIA_MEMBERS = ['imageMessage', 'videoMessage', 'audioMessage', 'documentMessage', 'stickerMessage'] as const;

interface StoredMedia {
  url?: unknown;
  mimetype?: unknown;
  fileName?: unknown;
}

/** HTTP statuses with which Meta's CDN refuses a link that expired (its `oe` parameter passed). */
const EXPIRED = new Set([403, 404, 410]);

/**
 * Downloads the attachment of a received Instagram or Messenger message from the CDN link its
 * record carries. Those links expire after some days, so the server keeps the bytes at ingestion
 * when `save_media` is on; later the download answers 404 `media_not_found`. The fetch is the
 * server's guarded one: public addresses only (checked at connect time), a size limit (the host's
 * `media.maxDownloadBytes`, or the plugin's tighter `mediaMaxBytes`), the host's deadline and idle
 * limit (`media.downloadTimeoutMs`, `media.downloadIdleMs`).
 */
export class MetaMediaDownloader {
  constructor(
    private readonly label: string,
    private readonly limits: MetaMediaLimits,
  ) {}

  /** The bytes of the record's attachment; null when the record has none. */
  async download(record: MessageRecord): Promise<MediaBlob | null> {
    const media = mediaOf(record);
    if (!media) return null;
    const check = (value: string) => assertUrlAllowed(value, { field: 'media link', allowPrivate: this.limits.allowPrivate, resolve: false });
    try {
      const answer = await guardedGet(await check(media.url), this.limits, check);
      return {
        data: answer.data,
        // Meta's CDN names the real type; the record's is guessed from the link.
        mimetype: answer.mimetype || media.mimetype,
        ...(media.fileName ? { fileName: media.fileName } : {}),
      };
    } catch (err) {
      // The link came from Meta, not from the caller: a refused one is Meta's (or the network's) fault, not a 400.
      if (err instanceof ValidationError) throw new UpstreamError(`${this.label} media link refused: ${err.message}`, { retryable: false, kind: 'refused' });
      if (!(err instanceof GuardedGetError)) throw err;
      throw this.failure(err, record.key.id);
    }
  }

  private failure(err: GuardedGetError, messageId: string): Error {
    // Received media over its limit is the same answer on every channel (the CDN's Content-Length or the bytes counted).
    const what = `media of message ${messageId}`;
    if (err.failure === 'too_large') return new MediaTooLargeError(what, this.limits.maxBytes, undefined, this.limits.setting);
    if (err.failure === 'timeout') return new MediaDownloadTimeoutError(what, this.limits.timeoutMs, 'media.downloadTimeoutMs');
    if (err.failure === 'idle') return new MediaDownloadTimeoutError(what, this.limits.idleMs, 'media.downloadIdleMs');
    if (err.failure === 'status' && err.httpStatus !== undefined && EXPIRED.has(err.httpStatus)) {
      return new ParleyError(404, 'media_not_found',
        `${what} is no longer available: ${this.label}'s link answered HTTP ${err.httpStatus} `
        + '(Meta\'s attachment links expire; turn save_media on to keep received media)');
    }
    const retryable = err.failure === 'network' || (err.httpStatus ?? 0) >= 500;
    return new UpstreamError(`${this.label} media download failed: ${err.message}`, { retryable, kind: err.failure });
  }
}

function mediaOf(record: MessageRecord): { url: string; mimetype: string; fileName?: string } | null {
  const message = (record.message ?? {}) as Record<string, StoredMedia | undefined>;
  for (const member of MEDIA_MEMBERS) {
    const media = message[member];
    if (media && typeof media.url === 'string' && media.url !== '') {
      return {
        url: media.url,
        mimetype: typeof media.mimetype === 'string' && media.mimetype !== '' ? media.mimetype : 'application/octet-stream',
        ...(typeof media.fileName === 'string' && media.fileName !== '' ? { fileName: media.fileName } : {}),
      };
    }
  }
  return null;
}
