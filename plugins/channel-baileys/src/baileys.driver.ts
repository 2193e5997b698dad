import type { Readable } from 'node:stream';
import type { ConnectionOptions } from 'node:tls';
import { DEFAULT_MEDIA_LIMITS, MediaDownloadTimeoutError, MediaTooLargeError, systemClock, WHATSAPP_PACING, type ChannelContext, type ChannelDriver, type Logger, type MediaLimits } from '@parley/core';
import { pendingMessage, WHATSAPP_ADDRESSING } from '@parley/whatsapp-proto';
import makeWASocket, { downloadMediaMessage } from '@whiskeysockets/baileys';
import QRCode from 'qrcode';
import { getGlobalDispatcher, type Dispatcher } from 'undici';
import { BaileysAdapter } from './baileys.adapter.js';
import { DownloadBound, readBounded } from './media/bounded-download.js';
import { mediaGone, renewMedia } from './media/media-retry.js';
import { systemResolve, type ResolveHost } from '@parley/net';
import { pinServerRoot, WHATSAPP_ROOT_KEY } from './connection/server-certificate.js';
import { resolveOptions, type BaileysOptions } from './options.js';
import type { MediaDownloader } from './runtime.js';
import type { InProcessSimulator } from './simulator/in-process.js';
import type { SocketFactory } from './socket.js';
import { sessionImportRoute } from './auth/session-import-route.js';
import { announceOnlyNameChanges } from './connection/partial-creds.js';

/** Inputs of {@link createBaileysDriver}; everything but `options` exists for tests. */
export interface BaileysDriverInput {
  options?: BaileysOptions;
  /** Builds sockets; default Baileys' `makeWASocket`. Tests pass a fake. */
  socketFactory?: SocketFactory;
  /** Driver-level logger (adapters log through their instance's logger). */
  logger?: Logger;
  /** Downloads message media; default Baileys' `downloadMediaMessage` with media re-upload requests. */
  download?: MediaDownloader;
  /** PNG data URI of a QR string; default the `qrcode` package. */
  qrImage?: (qr: string) => Promise<string>;
  /** TLS options of media downloads through a proxy, such as the CA of a TLS-inspecting proxy (tests use it for a local media host). */
  mediaTls?: ConnectionOptions;
  /** Host setting: user-supplied URLs (the instance's proxy included) may point to private networks. */
  allowPrivateUrls?: boolean;
  /** Host setting: the instance's proxy may be on a private network even where user-supplied URLs may not; default `allowPrivateUrls`. */
  allowPrivateProxy?: boolean;
  /** Host setting: limits of media fetched from user-supplied URLs and of received media; default {@link DEFAULT_MEDIA_LIMITS}. */
  mediaLimits?: MediaLimits;
  /** Resolves host names of user-supplied URLs and of the instance's proxy; default the system resolver. Tests point names at addresses. */
  resolveHost?: ResolveHost;
  /** Unix ms; default the system clock (the plugin passes the server's clock). */
  now?: () => number;
  /** [0, 1); default `Math.random` (reconnection jitter). */
  random?: () => number;
  /** The simulator the plugin started in this process (the `simulator` option); stopped by `close`. */
  simulator?: InProcessSimulator;
}

/**
 * Media WhatsApp's host no longer has (404, 410) is asked of the account's phone again ({@link renewMedia}),
 * then downloaded from its new path; `message` then carries that path. Baileys
 * hands `options` to the global `fetch`, which takes the guarded dispatcher (checked addresses
 * only, through the instance's proxy when it has one), bounded for this download by a
 * {@link DownloadBound}. Baileys answers a stream (its `buffer` mode would read any size), read
 * here up to `media.maxDownloadBytes`, within `media.downloadTimeoutMs` and `media.downloadIdleMs`.
 */
const defaultDownload: MediaDownloader = async (message, socket, logger, dispatcher, limits) => {
  const what = `media of message ${message.key.id ?? ''}`;
  const bound = new DownloadBound(dispatcher ?? getGlobalDispatcher(), {
    maxBytes: limits.maxDownloadBytes, timeoutMs: limits.downloadTimeoutMs, idleMs: limits.downloadIdleMs,
    tooLarge: () => new MediaTooLargeError(what, limits.maxDownloadBytes),
    timedOut: (setting, ms) => new MediaDownloadTimeoutError(what, ms, setting),
  });
  const options: RequestInit & { dispatcher: Dispatcher } = { dispatcher: bound };
  const fetchStream = () => downloadMediaMessage(message, 'stream', { options });
  try {
    let stream: Readable;
    try {
      stream = await bound.race(fetchStream().catch(async (err: unknown) => {
        if (!mediaGone(err)) throw err;
        logger.info({ messageId: message.key.id }, 'media gone from WhatsApp\'s media host: asking the phone to upload it again');
        await renewMedia(socket, message);
        return fetchStream();
      }));
    } catch (err) {
      throw bound.failure ?? err;
    }
    return await readBounded(stream, bound);
  } finally {
    bound.finish();
  }
};

/**
 * The WhatsApp main-channel driver (`name` and `channel` `whatsapp`, role `main`): one Baileys
 * adapter per instance. No network I/O happens before `connect`.
 */
export function createBaileysDriver(input: BaileysDriverInput = {}): ChannelDriver {
  const options = resolveOptions(input.options);
  if (input.options?.reconnect?.maxAttempts !== undefined) {
    input.logger?.warn('reconnect.maxAttempts is no longer used: WhatsApp reconnects after a transient close for as long as it lasts, '
      + 'every reconnect.maxDelayMs at most, and stops only on a close no retry can fix (401, 403, 411, 440)');
  }
  const socketFactory: SocketFactory = input.socketFactory ?? ((config) => announceOnlyNameChanges(makeWASocket(config)));
  const unpin = options.serverRoot && !options.serverRoot.equals(WHATSAPP_ROOT_KEY) ? pinServerRoot(options.serverRoot) : undefined;
  return {
    name: 'whatsapp',
    channel: 'whatsapp',
    role: 'main',
    addressing: WHATSAPP_ADDRESSING,
    pendingRecord: pendingMessage,
    // Unofficial WhatsApp bans accounts that send like machines: conservative pacing unless the instance sets its own.
    pacing: WHATSAPP_PACING,
    // WhatsApp answers a burst of logins from one address with rate-limit closes and bans: a restart
    // reconnects two accounts a second unless the operator configures otherwise.
    restorePerSecond: 2,
    routes: [sessionImportRoute('whatsapp')],
    create(context: ChannelContext) {
      input.logger?.debug({ instance: context.instanceId }, 'creating WhatsApp adapter');
      return new BaileysAdapter(context, {
        socketFactory,
        options,
        download: input.download ?? defaultDownload,
        qrImage: input.qrImage ?? ((qr) => QRCode.toDataURL(qr)),
        allowPrivateUrls: input.allowPrivateUrls ?? false,
        allowPrivateProxy: input.allowPrivateProxy ?? input.allowPrivateUrls ?? false,
        mediaLimits: input.mediaLimits ?? DEFAULT_MEDIA_LIMITS,
        resolveHost: input.resolveHost ?? systemResolve,
        ...(input.mediaTls ? { mediaTls: input.mediaTls } : {}),
        now: input.now ?? systemClock.now,
        random: input.random ?? Math.random,
        ...(input.simulator ? { simulated: input.simulator } : {}),
      });
    },
    async close() {
      unpin?.();
      await input.simulator?.stop();
    },
  };
}
