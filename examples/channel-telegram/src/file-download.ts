import { MediaDownloadTimeoutError, MediaTooLargeError, UpstreamError, type MediaLimits } from '@parley/core';
import { guardedGet, GuardedGetError } from '@parley/net';

/** The host's limits on received media this channel applies (`host.media` of the register context). */
export type DownloadLimits = Pick<MediaLimits, 'maxDownloadBytes' | 'downloadTimeoutMs' | 'downloadIdleMs'>;

const WHAT = 'the received Telegram file';

/**
 * The bytes of a received file at `url`, within the host's limits (docs/plugins.md, "Received media
 * limits"): refused before the download when Telegram declares a larger `declaredSize`, and stopped
 * (its connection closed) once more than `maxDownloadBytes` arrive whatever was declared —
 * `MediaTooLargeError`; stopped after `downloadTimeoutMs` in all, or `downloadIdleMs` without a byte,
 * with `MediaDownloadTimeoutError`. The download is `@parley/net`'s bounded GET; the URL is the
 * operator's Bot API host (`apiBaseUrl`), so private addresses are allowed and no redirect is followed.
 */
export async function downloadFile(url: string, declaredSize: number | undefined, limits: DownloadLimits): Promise<Buffer> {
  if (declaredSize !== undefined && declaredSize > limits.maxDownloadBytes) throw new MediaTooLargeError(WHAT, limits.maxDownloadBytes, declaredSize);
  const refuseRedirect = (next: string): Promise<URL> => Promise.reject(new UpstreamError(`Telegram file download redirected to ${next}`, { retryable: false }));
  try {
    const answer = await guardedGet(
      new URL(url),
      { maxBytes: limits.maxDownloadBytes, timeoutMs: limits.downloadTimeoutMs, idleMs: limits.downloadIdleMs, allowPrivate: true, maxRedirects: 1 },
      refuseRedirect,
    );
    return answer.data;
  } catch (err) {
    if (!(err instanceof GuardedGetError)) throw err;
    if (err.failure === 'too_large') throw new MediaTooLargeError(WHAT, limits.maxDownloadBytes);
    if (err.failure === 'timeout') throw new MediaDownloadTimeoutError(WHAT, limits.downloadTimeoutMs, 'media.downloadTimeoutMs');
    if (err.failure === 'idle') throw new MediaDownloadTimeoutError(WHAT, limits.downloadIdleMs, 'media.downloadIdleMs');
    const status = err.httpStatus;
    if (status !== undefined) throw new UpstreamError(`Telegram file download answered HTTP ${status}`, { retryable: status >= 500, upstreamCode: status });
    throw new UpstreamError(`Telegram file download failed: ${err.message}`, { retryable: err.failure === 'network' });
  }
}
