import assert from 'node:assert/strict';
import { DEFAULT_MEDIA_LIMITS, MediaDownloadTimeoutError, MediaTooLargeError, type MediaLimits } from '@parley/core';
import { connectChecked, freshId, messageEvent, messagingOf } from './channel-conformance-checks.js';
import type { ChannelConformanceHarness, InboundAttachment } from './channel-conformance-harness.js';
import { startRun } from './channel-conformance-host.js';
import { describe, it } from './test-runner.js';

/** The host's limits of received media the suite builds the driver with: small enough to cross with a few kilobytes. */
export const CONFORMANCE_MEDIA_LIMITS: Readonly<MediaLimits> = Object.freeze({
  ...DEFAULT_MEDIA_LIMITS, maxDownloadBytes: 2048, downloadIdleMs: 300, downloadTimeoutMs: 10_000,
});

/**
 * The checks of a channel declaring `receivedMedia` (docs/plugins.md, "Received media limits"): with
 * {@link CONFORMANCE_MEDIA_LIMITS}, a received attachment within them downloads whole; one declared
 * larger, or sending more than it declared, fails with `MediaTooLargeError`; one that goes silent
 * fails with `MediaDownloadTimeoutError` naming `media.downloadIdleMs`.
 */
export function describeReceivedMediaChecks(harness: ChannelConformanceHarness, text: (n: number) => string): void {
  const received = harness.declares.receivedMedia;
  if (!received) return;
  const limits = CONFORMANCE_MEDIA_LIMITS;

  /** Downloads the attachment of a `received.kind` message the far side delivers with `attachment`. */
  async function download(attachment: InboundAttachment): Promise<Awaited<ReturnType<NonNullable<ReturnType<typeof messagingOf>['downloadMedia']>>>> {
    const run = await startRun(harness, { media: limits });
    try {
      await connectChecked(run, harness.declares);
      const id = await run.farSide.deliverInbound({ kind: received!.kind, text: text(7), id: freshId(), attachment });
      const { message } = await messageEvent(run.host, id, false);
      const messaging = messagingOf(run.host.adapter());
      assert.ok(messaging.downloadMedia, 'a channel declaring receivedMedia implements messaging.downloadMedia');
      return await messaging.downloadMedia(message.record);
    } finally {
      await run.close();
    }
  }

  describe(`received media limits (${received.kind})`, () => {
    it('downloads an attachment within media.maxDownloadBytes whole', async () => {
      const blob = await download({ bytes: limits.maxDownloadBytes });
      assert.equal(blob?.data.length, limits.maxDownloadBytes);
    });
    it('refuses an attachment declared larger than media.maxDownloadBytes (MediaTooLargeError)', async () => {
      await assert.rejects(download({ bytes: limits.maxDownloadBytes * 2 }), MediaTooLargeError);
    });
    it('stops reading an attachment that sends more than it declared (MediaTooLargeError)', async () => {
      await assert.rejects(download({ bytes: limits.maxDownloadBytes * 32, declaredBytes: 100 }), MediaTooLargeError);
    });
    it('stops a download that goes silent for media.downloadIdleMs (MediaDownloadTimeoutError)', async () => {
      await assert.rejects(download({ bytes: 1000, stalls: true }), (err: unknown) => err instanceof MediaDownloadTimeoutError && err.setting === 'media.downloadIdleMs');
    });
  });
}
