import { MediaDownloadTimeoutError, MediaTooLargeError, UpstreamError, type MediaLimits } from '@parley/core';

/** The host's limits on received media this channel applies (`host.media` of the register context). */
export type DownloadLimits = Pick<MediaLimits, 'maxDownloadBytes' | 'downloadTimeoutMs' | 'downloadIdleMs'>;

/**
 * The bytes of a received file at `url`, within the host's limits (docs/plugins.md, "Received media
 * limits"): refused before the download when Telegram declares a larger `declaredSize`, and stopped
 * (its connection closed) once more than `maxDownloadBytes` arrive whatever was declared —
 * `MediaTooLargeError`; stopped after `downloadTimeoutMs` in all, or `downloadIdleMs` without a byte,
 * with `MediaDownloadTimeoutError`.
 */
export async function downloadFile(url: string, declaredSize: number | undefined, limits: DownloadLimits): Promise<Buffer> {
  const what = 'the received Telegram file';
  if (declaredSize !== undefined && declaredSize > limits.maxDownloadBytes) throw new MediaTooLargeError(what, limits.maxDownloadBytes, declaredSize);
  const controller = new AbortController();
  let timedOut: MediaDownloadTimeoutError | undefined;
  const stop = (error: MediaDownloadTimeoutError) => () => {
    timedOut = error;
    controller.abort(error);
  };
  const whole = setTimeout(stop(new MediaDownloadTimeoutError(what, limits.downloadTimeoutMs, 'media.downloadTimeoutMs')), limits.downloadTimeoutMs);
  const idleError = new MediaDownloadTimeoutError(what, limits.downloadIdleMs, 'media.downloadIdleMs');
  let idle = setTimeout(stop(idleError), limits.downloadIdleMs);
  try {
    const response = await fetch(url, { signal: controller.signal });
    if (!response.ok) throw new UpstreamError(`Telegram file download answered HTTP ${response.status}`, { retryable: response.status >= 500, upstreamCode: response.status });
    const chunks: Buffer[] = [];
    let received = 0;
    for await (const chunk of response.body ?? []) {
      clearTimeout(idle);
      idle = setTimeout(stop(idleError), limits.downloadIdleMs);
      received += chunk.byteLength;
      if (received > limits.maxDownloadBytes) {
        controller.abort();
        throw new MediaTooLargeError(what, limits.maxDownloadBytes);
      }
      chunks.push(Buffer.from(chunk));
    }
    return Buffer.concat(chunks);
  } catch (err) {
    throw timedOut ?? err;
  } finally {
    clearTimeout(whole);
    clearTimeout(idle);
  }
}
