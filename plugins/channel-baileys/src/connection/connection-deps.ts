import type { ChannelContext, Logger } from '@parley/core';
import type { ConnectionOptions } from 'node:tls';
import type { GroupMetadata } from '@whiskeysockets/baileys';
import type { ProxyGuard } from '@parley/net';
import type { HealthMonitor } from '../health/health-monitor.js';
import type { ResolvedBaileysOptions } from '../options.js';
import type { BaileysSocket, SocketFactory } from '../socket.js';
import type { BoundedCache } from '../util/bounded-cache.js';

/** What the connection manager needs. */
export interface ConnectionDeps {
  context: ChannelContext;
  options: ResolvedBaileysOptions;
  socketFactory: SocketFactory;
  health: HealthMonitor;
  groupCache: BoundedCache<GroupMetadata>;
  logger: Logger;
  /** Subscribes the inbound event router to a socket; answers the unsubscribe function. */
  listen(socket: BaileysSocket): () => void;
  /** Clears what the instance keeps besides auth state when it logs out (labels). */
  onLoggedOut(): Promise<void>;
  /** PNG data URI of a QR string. */
  qrImage(qr: string): Promise<string>;
  /** Random number in [0, 1), for backoff jitter. */
  random(): number;
  /** Unix ms. */
  now(): number;
  /** TLS options of media downloads (an extra CA: a TLS-inspecting proxy's, a test host's). */
  mediaTls?: ConnectionOptions;
  /** How the instance proxy's address is checked each time it is dialled (WebSocket, uploads, downloads). */
  proxyGuard: ProxyGuard;
  /** Host setting: the hosts Baileys downloads from (named by the messages contacts send) may be on private networks. */
  allowPrivateUrls: boolean;
}
