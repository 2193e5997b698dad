import type { ChannelContext, Logger, ReceivedMediaLimits } from '@parley/core';
import type { WAMessage } from '@whiskeysockets/baileys';
import type { Dispatcher } from 'undici';
import type { ConnectionManager } from './connection/connection-manager.js';
import type { LabelStore } from './labels/label-store.js';
import type { GuardedFetcher } from '@parley/net';
import type { BaileysSocket } from './socket.js';
import type { GroupMetadataCache } from './util/group-cache.js';
import type { RecipientResolver } from './capabilities/recipients.js';
import type { ServerAcks } from './events/server-acks.js';
import { normalizeJid } from './util/jids.js';

/**
 * Downloads and decrypts the media of a message (Baileys' `downloadMediaMessage` by default).
 * `dispatcher` is the connection's guarded dispatcher: private addresses are refused when
 * connecting (the message's sender chose the link), through the instance's proxy when it has one.
 * More than `limits.maxDownloadBytes` of media rejects with MediaTooLargeError as soon as it is
 * known, the download stopped and its connection closed (the message's declared `fileLength` is
 * checked before the downloader is called, but the sender chose it too); a download passing
 * `limits.downloadTimeoutMs`, or `limits.downloadIdleMs` without a byte, is stopped the same way
 * and rejects with MediaDownloadTimeoutError.
 */
export type MediaDownloader = (
  message: WAMessage, socket: BaileysSocket, logger: Logger, dispatcher: Dispatcher | undefined, limits: ReceivedMediaLimits,
) => Promise<Buffer>;

/** What every capability of one adapter shares. */
export interface AdapterRuntime {
  readonly context: ChannelContext;
  readonly connection: ConnectionManager;
  readonly labels: LabelStore;
  readonly groupCache: GroupMetadataCache;
  readonly logger: Logger;
  /** Fetches user-supplied URLs (catalog images, product cards, group pictures) so Baileys gets bytes, never a URL. */
  readonly fetcher: GuardedFetcher;
  readonly download: MediaDownloader;
  /** Host settings `media.maxDownloadBytes`, `media.downloadTimeoutMs`, `media.downloadIdleMs`: the limits of received media. */
  readonly receivedMedia: ReceivedMediaLimits;
  /** The account a person's number reaches (WhatsApp's usync answer, cached): sends go there. */
  readonly recipients: RecipientResolver;
  /** Sends awaiting the server's ack (announced before each relay; the event router reports them `sent`). */
  readonly acks: ServerAcks;
  /** Settles once the channel's state documents are out of earlier versions' namespaces (labels/state-namespaces.ts). */
  readonly stateMoved: Promise<void>;
  /** Unix ms. */
  now(): number;
}

/** The account's own JID without device suffix. */
export function ownJid(socket: BaileysSocket): string {
  if (!socket.user?.id) throw new Error('socket has no user');
  return normalizeJid(socket.user.id);
}
