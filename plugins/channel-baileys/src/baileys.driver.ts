import type { ChannelContext, ChannelDriver, Logger } from '@parley/core';
import makeWASocket, { downloadMediaMessage } from '@whiskeysockets/baileys';
import QRCode from 'qrcode';
import { BaileysAdapter } from './baileys.adapter.js';
import { resolveOptions, type BaileysOptions } from './options.js';
import type { MediaDownloader } from './runtime.js';
import type { SocketFactory } from './socket.js';

/** Inputs of {@link createBaileysDriver}; everything but `options` exists for tests. */
export interface BaileysDriverInput {
  options?: BaileysOptions;
  /** Builds sockets; default Baileys' `makeWASocket`. Tests pass a fake. */
  socketFactory?: SocketFactory;
  logger?: Logger;
  /** Downloads message media; default Baileys' `downloadMediaMessage` with media re-upload requests. */
  download?: MediaDownloader;
  /** PNG data URI of a QR string; default the `qrcode` package. */
  qrImage?: (qr: string) => Promise<string>;
  /** Host setting: user-supplied URLs may point to private networks. */
  allowPrivateUrls?: boolean;
  /** Unix ms; default `Date.now`. */
  now?: () => number;
  /** [0, 1); default `Math.random` (reconnection jitter). */
  random?: () => number;
}

const defaultDownload: MediaDownloader = (message, socket, logger) =>
  downloadMediaMessage(message, 'buffer', {}, {
    reuploadRequest: (m) => socket.updateMediaMessage(m),
    logger: { level: 'warn', child: () => undefined as never, trace: () => {}, debug: () => {}, info: () => {}, warn: (o, m) => logger.warn(o, m), error: (o, m) => logger.error(o, m) },
  });

/**
 * The WhatsApp main-channel driver (`name` and `channel` `whatsapp`, role `main`): one Baileys
 * adapter per instance. No network I/O happens before `connect`.
 */
export function createBaileysDriver(input: BaileysDriverInput = {}): ChannelDriver {
  const options = resolveOptions(input.options);
  const socketFactory: SocketFactory = input.socketFactory ?? ((config) => makeWASocket(config));
  return {
    name: 'whatsapp',
    channel: 'whatsapp',
    role: 'main',
    create(context: ChannelContext) {
      return new BaileysAdapter(context, {
        socketFactory,
        options,
        download: input.download ?? defaultDownload,
        qrImage: input.qrImage ?? ((qr) => QRCode.toDataURL(qr)),
        allowPrivateUrls: input.allowPrivateUrls ?? false,
        now: input.now ?? Date.now,
        random: input.random ?? Math.random,
      });
    },
  };
}
