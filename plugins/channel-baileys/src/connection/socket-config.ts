import type { AccountUser, ChannelContext, Logger } from '@parley/core';
import type { ProxyGuard, ProxyUrl } from '@parley/net';
import type { Dispatcher } from 'undici';
import type { ConnectionState, Contact, GroupMetadata, UserFacingSocketConfig } from '@whiskeysockets/baileys';
import type { StorageAuthState } from '../auth/storage-auth-state.js';
import { storedMessages } from '../mapping/stored-message.js';
import type { ResolvedBaileysOptions } from '../options.js';
import type { BaileysSocket } from '../socket.js';
import { BoundedCache } from '../util/bounded-cache.js';
import { normalizeJid } from '../util/jids.js';
import { browserIdentity, type LinkMethod } from './browser-identity.js';
import { baileysLogger } from './logger-bridge.js';
import { proxyAgents } from './proxy.js';

/** What one socket's configuration is built from. */
export interface SocketConfigInput {
  context: ChannelContext;
  options: ResolvedBaileysOptions;
  logger: Logger;
  auth: StorageAuthState;
  proxy: ProxyUrl | undefined;
  /** How the proxy's address is checked at each connection. */
  proxyGuard: ProxyGuard;
  /**
   * The guarded dispatcher of Baileys' own downloads (history-sync and app-state blobs, whose links
   * arrive in messages): Baileys hands `options` to the global `fetch` of those.
   */
  downloads: Dispatcher;
  groupCache: BoundedCache<GroupMetadata>;
  /** A socket started to ask for a pairing code announces an identity WhatsApp accepts for that. */
  linkMethod: LinkMethod;
  /** The socket the group-metadata read-through queries (the current one, once built). */
  socket(): BaileysSocket | null;
}

/** Baileys' configuration of one socket of an instance. */
export function socketConfig(input: SocketConfigInput): UserFacingSocketConfig {
  const { context, options, auth, proxy, groupCache } = input;
  return {
    auth: auth.state,
    logger: baileysLogger(input.logger.child({ lib: 'baileys' }), options.logLevel),
    browser: browserIdentity(options, input.linkMethod),
    markOnlineOnConnect: options.markOnlineOnConnect,
    syncFullHistory: options.syncFullHistory,
    connectTimeoutMs: options.connectTimeoutMs,
    keepAliveIntervalMs: options.keepAliveIntervalMs,
    ...(options.qrTimeoutMs ? { qrTimeout: options.qrTimeoutMs } : {}),
    ...(options.webSocketUrl ? { waWebSocketUrl: options.webSocketUrl } : {}),
    // Messages the instance sends are answered by `send`; only messages sent from the phone arrive as events.
    emitOwnEvents: false,
    generateHighQualityLinkPreview: false,
    ...(options.version ? { version: options.version } : {}),
    ...(proxy ? proxyAgents(proxy, input.proxyGuard) : {}),
    options: { dispatcher: input.downloads } as RequestInit,
    getMessage: storedMessages(context),
    // Read-through: Baileys needs group members for every group send; one query serves many sends.
    cachedGroupMetadata: async (jid) => {
      const cached = groupCache.get(jid);
      const socket = input.socket();
      if (cached || !socket) return cached;
      const meta = await socket.groupMetadata(jid).catch(() => undefined);
      if (meta) groupCache.set(jid, meta);
      return meta;
    },
    // Baileys' default caches expire by time only; under heavy traffic they grow without bound.
    msgRetryCounterCache: new BoundedCache({ max: 10_000, ttlMs: 3_600_000 }),
    userDevicesCache: new BoundedCache({ max: 5_000, ttlMs: 300_000 }),
    callOfferCache: new BoundedCache({ max: 1_000, ttlMs: 300_000 }),
    placeholderResendCache: new BoundedCache({ max: 5_000, ttlMs: 3_600_000 }),
  };
}

/** Listeners of one socket. */
export interface SocketListeners {
  /** Subscribes the inbound event router; answers its unsubscribe function. */
  events(socket: BaileysSocket): () => void;
  update(update: Partial<ConnectionState>): void;
  creds(): void;
}

/** Subscribes the listeners to a socket; answers the function that unsubscribes them all. */
export function subscribe(socket: BaileysSocket, listeners: SocketListeners): () => void {
  const unlistenEvents = listeners.events(socket);
  socket.ev.on('connection.update', listeners.update);
  socket.ev.on('creds.update', listeners.creds);
  return () => {
    unlistenEvents();
    socket.ev.off('connection.update', listeners.update);
    socket.ev.off('creds.update', listeners.creds);
  };
}

/** The account a socket opened as (`socket.user`, Baileys' `creds.me`). */
export function accountUser(me: Contact | undefined): AccountUser | null {
  if (!me) return null;
  const name = me.name ?? me.notify ?? me.verifiedName;
  // Baileys' `me` is this linked device (`<number>:<device>@s.whatsapp.net`); the account is the number.
  return { id: normalizeJid(me.id), ...(me.lid ? { lid: normalizeJid(me.lid) } : {}), ...(name ? { name } : {}) };
}
