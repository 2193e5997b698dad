import {
  ConflictError, ServiceUnavailableError, UpstreamError, ValidationError, type AccountUser, type ChannelContext, type ConnectResult,
  type ConnectionState, type Logger,
} from '@parley/core';
import type { ConnectionOptions } from 'node:tls';
import {
  ALL_WA_PATCH_NAMES, DisconnectReason, type ConnectionState as WAConnectionState, type GroupMetadata, type UserFacingSocketConfig,
} from '@whiskeysockets/baileys';
import type { Dispatcher } from 'undici';
import { loadStorageAuthState, type StorageAuthState } from '../auth/storage-auth-state.js';
import type { HealthMonitor } from '../health/health-monitor.js';
import { storedMessages } from '../mapping/stored-message.js';
import type { ResolvedBaileysOptions } from '../options.js';
import type { BaileysSocket, SocketFactory } from '../socket.js';
import { BoundedCache } from '../util/bounded-cache.js';
import { upstream } from '../util/errors.js';
import { normalizeJid } from '../util/jids.js';
import { reconnectDelay } from './backoff.js';
import { disconnectInfo } from './disconnect-reason.js';
import { browserIdentity } from './browser-identity.js';
import { baileysLogger } from './logger-bridge.js';
import { mediaDispatcher } from './media-dispatcher.js';
import { parseProxy, proxyAgents, redactProxy } from './proxy.js';

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
  /** TLS options of media downloads through a proxy (an extra CA). */
  mediaTls?: ConnectionOptions;
}

type Outcome = 'qr' | 'open';

interface Waiter {
  resolve(outcome: Outcome): void;
  reject(err: Error): void;
}

/** Raised to a waiting `connect()` when the stored session turned out to be logged out. */
class SessionLoggedOut extends ConflictError {
  constructor() {
    super('the WhatsApp session was logged out; connect again to pair', 'logged_out');
  }
}

/**
 * Owns the Baileys socket of one instance: starts it with the stored auth state and the instance's
 * proxy, answers QR codes and pairing codes, reconnects after every close except a logout (capped
 * exponential backoff with jitter, at most `reconnect.maxAttempts` attempts in a row), and clears
 * the session on logout.
 */
export class ConnectionManager {
  /** The chain of connection updates being handled, in arrival order. */
  private updates: Promise<void> = Promise.resolve();
  private socket: BaileysSocket | null = null;
  /** Media downloads of the current socket go through the same proxy as the socket. */
  private dispatcher: Dispatcher | undefined;
  private unlisten: (() => void) | null = null;
  private auth: StorageAuthState | null = null;
  private isOpen = false;
  private user: AccountUser | null = null;
  private qr: { qr: string; image: string } | null = null;
  private failure: ConnectionState['failure'];
  /** Reconnection attempts since the connection last opened. */
  private attempts = 0;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly waiters = new Set<Waiter>();
  private stopped = false;
  private healthSeeded = false;
  /** Deletion of a logged-out session, while it runs. */
  private clearing: Promise<void> | null = null;

  constructor(private readonly deps: ConnectionDeps) {}

  state(): ConnectionState {
    return { phoneConnected: this.isOpen, user: this.user, ...(this.failure ? { failure: { ...this.failure } } : {}) };
  }

  /** The undici dispatcher of the instance's proxy for media downloads; undefined without a proxy. */
  downloadDispatcher(): Dispatcher | undefined {
    return this.dispatcher;
  }

  /** The open socket; ConflictError (409) while the connection is not open. */
  openSocket(): BaileysSocket {
    if (!this.socket || !this.isOpen) throw new ConflictError('the WhatsApp connection is not open', 'not_connected');
    return this.socket;
  }

  async connect(): Promise<ConnectResult> {
    this.stopped = false;
    let retried = false;
    for (;;) {
      if (this.stopped) throw new ServiceUnavailableError('the instance was stopped');
      if (this.isOpen && this.socket) return this.connectedResult();
      if (this.qr && this.socket) return this.qrResult();
      if (!this.socket) {
        this.cancelReconnect();
        this.failure = undefined;
        this.attempts = 0;
        await this.start();
        // The socket may have answered while it was being set up.
        continue;
      }
      try {
        const outcome = await this.waitFor(this.deps.options.qrWaitMs);
        return outcome === 'open' ? this.connectedResult() : this.qrResult();
      } catch (err) {
        // Stored creds that WhatsApp no longer accepts were cleared: one fresh start gets a new QR.
        if (err instanceof SessionLoggedOut && !retried) {
          retried = true;
          continue;
        }
        throw err;
      }
    }
  }

  async requestPairingCode(phoneNumber: string): Promise<string> {
    const digits = phoneNumber.replace(/[\s()+-]/g, '');
    if (!/^\d{6,15}$/.test(digits)) throw new ValidationError('phoneNumber must be a phone number with country code (6 to 15 digits)');
    this.stopped = false;
    if (this.isOpen || this.auth?.state.creds.registered) {
      throw new ConflictError('the instance is already paired; log out before pairing another number', 'already_connected');
    }
    if (!this.socket) {
      this.cancelReconnect();
      this.failure = undefined;
      this.attempts = 0;
      await this.start();
    }
    if (this.stopped || !this.socket) throw new ServiceUnavailableError('the instance was stopped');
    // WhatsApp takes a pairing-code request once the login handshake is ready, which the first QR marks.
    if (!this.qr && !this.isOpen) await this.waitFor(this.deps.options.qrWaitMs);
    if (this.isOpen) throw new ConflictError('the instance connected with its stored session', 'already_connected');
    const socket = this.socket;
    if (!socket) throw new ServiceUnavailableError('the connection closed before the pairing code could be requested');
    const code = await upstream('the pairing code request', () => socket.requestPairingCode(digits));
    const clean = code.replace(/[^0-9A-Za-z]/g, '').toUpperCase();
    return `${clean.slice(0, 4)}-${clean.slice(4, 8)}`;
  }

  async restart(): Promise<void> {
    this.stopped = false;
    await this.teardown();
    this.attempts = 0;
    this.failure = undefined;
    await this.start();
  }

  async resync(): Promise<void> {
    const socket = this.openSocket();
    await upstream('the app-state resync', () => socket.resyncAppState(ALL_WA_PATCH_NAMES, false));
  }

  async logout(): Promise<void> {
    const socket = this.socket;
    const wasOpen = this.isOpen;
    const hadSession = wasOpen || this.user !== null || socket !== null || this.auth?.restored === true;
    this.cancelReconnect();
    if (socket) {
      this.detach();
      try {
        if (wasOpen) await socket.logout();
        else await socket.end(undefined);
      } catch (err) {
        this.deps.logger.warn({ err }, 'logout request failed; clearing the local session anyway');
      }
    }
    await this.loggedOut();
    if (hadSession) this.emitClose(DisconnectReason.loggedOut, 'loggedOut', true, false);
  }

  /** Closes the socket and timers, keeping the session. */
  /** Resolves when every connection update received so far is handled (QR images rendered, events emitted). */
  async idle(): Promise<void> {
    let current: Promise<void>;
    do {
      current = this.updates;
      await current;
    } while (current !== this.updates);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.teardown();
    this.rejectWaiters(new ServiceUnavailableError('the instance was stopped'));
  }

  // ---- lifecycle ----------------------------------------------------------------------------------

  private async start(): Promise<void> {
    const { context, options } = this.deps;
    // A new session must not start from creds that a logout is still deleting.
    if (this.clearing) await this.clearing;
    const instance = await context.instance();
    const proxy = parseProxy(instance.proxy);
    if (this.stopped) return;
    if (instance.proxy) this.deps.logger.info({ proxy: redactProxy(instance.proxy) }, 'connecting through proxy');
    this.auth ??= await loadStorageAuthState(context.storage.authState, context.instanceId, options.keyCacheSize);
    // stop() may have run while storage was read; a socket made now would outlive the adapter.
    if (this.stopped) return;
    // The stored status seeds the monitor once; afterwards the monitor is the source of truth.
    if (!this.healthSeeded) this.deps.health.reset(instance.health);
    this.healthSeeded = true;
    const auth = this.auth;
    const config: UserFacingSocketConfig = {
      auth: auth.state,
      logger: baileysLogger(this.deps.logger.child({ lib: 'baileys' }), options.logLevel),
      browser: browserIdentity(options),
      markOnlineOnConnect: options.markOnlineOnConnect,
      syncFullHistory: options.syncFullHistory,
      connectTimeoutMs: options.connectTimeoutMs,
      // Messages the instance sends are answered by `send`; only messages sent from the phone arrive as events.
      emitOwnEvents: false,
      generateHighQualityLinkPreview: false,
      ...(options.version ? { version: options.version } : {}),
      ...(proxy ? proxyAgents(proxy) : {}),
      getMessage: storedMessages(context),
      // Read-through: Baileys needs group members for every group send; one query serves many sends.
      cachedGroupMetadata: async (jid) => {
        const cached = this.deps.groupCache.get(jid);
        if (cached || !this.socket) return cached;
        const meta = await this.socket.groupMetadata(jid).catch(() => undefined);
        if (meta) this.deps.groupCache.set(jid, meta);
        return meta;
      },
      // Baileys' default caches expire by time only; under heavy traffic they grow without bound.
      msgRetryCounterCache: new BoundedCache({ max: 10_000, ttlMs: 3_600_000 }),
      userDevicesCache: new BoundedCache({ max: 5_000, ttlMs: 300_000 }),
      callOfferCache: new BoundedCache({ max: 1_000, ttlMs: 300_000 }),
      placeholderResendCache: new BoundedCache({ max: 5_000, ttlMs: 3_600_000 }),
    };
    const socket = this.deps.socketFactory(config);
    this.socket = socket;
    this.dispatcher = proxy ? mediaDispatcher(proxy, this.deps.mediaTls) : undefined;
    const unlistenEvents = this.deps.listen(socket);
    // Updates are handled one after another, in the order Baileys sent them (QR rendering is async).
    const onUpdate = (update: Partial<WAConnectionState>) => {
      this.updates = this.updates.then(() => this.onUpdate(socket, update)).catch((err: unknown) =>
        this.deps.context.logger.error({ err }, 'connection update failed'));
    };
    const onCreds = () => {
      auth.saveCreds().catch((err: unknown) => this.deps.logger.error({ err }, 'failed to store WhatsApp credentials'));
    };
    socket.ev.on('connection.update', onUpdate);
    socket.ev.on('creds.update', onCreds);
    this.unlisten = () => {
      unlistenEvents();
      socket.ev.off('connection.update', onUpdate);
      socket.ev.off('creds.update', onCreds);
    };
  }

  private async onUpdate(socket: BaileysSocket, update: Partial<WAConnectionState>): Promise<void> {
    if (socket !== this.socket) return;
    if (update.reachoutTimeLock) this.deps.health.timelock(update.reachoutTimeLock);
    if (update.qr) {
      const image = await this.deps.qrImage(update.qr);
      if (socket !== this.socket) return;
      this.qr = { qr: update.qr, image };
      this.deps.context.emit({ type: 'qrcode', qr: update.qr, image });
      this.notify('qr');
    }
    if (update.connection === 'open') this.opened(socket);
    if (update.connection === 'close') await this.closed(update.lastDisconnect?.error);
  }

  private opened(socket: BaileysSocket): void {
    this.isOpen = true;
    this.qr = null;
    this.attempts = 0;
    this.failure = undefined;
    const me = socket.user;
    this.user = me
      ? { id: me.id, ...(me.lid ? { lid: normalizeJid(me.lid) } : {}), ...(me.name ?? me.notify ?? me.verifiedName ? { name: me.name ?? me.notify ?? me.verifiedName } : {}) }
      : null;
    if (this.user) this.deps.context.emit({ type: 'connection', status: 'open', code: 200, user: this.user });
    this.deps.health.connectionOpened();
    this.notify('open');
    socket.fetchAccountReachoutTimelock().catch((err: unknown) => this.deps.logger.debug({ err }, 'could not read the reach-out timelock'));
  }

  private async closed(error: unknown): Promise<void> {
    const wasOpen = this.isOpen;
    this.detach();
    const { code, reason } = disconnectInfo(error);
    if (code === DisconnectReason.loggedOut) {
      await this.loggedOut();
      this.emitClose(code, reason, true, false);
      this.rejectWaiters(new SessionLoggedOut());
      return;
    }
    if (code === DisconnectReason.forbidden) this.deps.health.connectionForbidden();
    this.afterFailure(code, reason, wasOpen);
  }

  /** Schedules the next attempt, or gives up once `maxAttempts` reconnections failed in a row. */
  private afterFailure(code: number, reason: string, wasOpen: boolean): void {
    if (this.stopped) return;
    // Right after a QR scan WhatsApp asks for a new connection: part of the login, not a failure.
    if (code === DisconnectReason.restartRequired) {
      this.deps.logger.info('WhatsApp asked for a restart after pairing; reconnecting');
      return this.schedule(0);
    }
    const policy = this.deps.options.reconnect;
    if (this.attempts >= policy.maxAttempts) {
      this.failure = { code, reason, attempts: this.attempts };
      this.deps.logger.error({ code, reason, attempts: this.attempts }, 'giving up reconnecting to WhatsApp');
      this.emitClose(code, reason, false, false);
      this.rejectWaiters(new ServiceUnavailableError(`WhatsApp connection failed after ${this.attempts} attempts: ${reason} (${code})`, { code, reason }));
      return;
    }
    this.attempts += 1;
    const delay = reconnectDelay(policy, this.attempts, this.deps.random);
    this.deps.logger.warn({ code, reason, attempt: this.attempts, delayMs: delay }, 'WhatsApp connection closed; reconnecting');
    if (wasOpen) this.emitClose(code, reason, false, true);
    this.schedule(delay);
  }

  private schedule(delayMs: number): void {
    this.cancelReconnect();
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this.stopped || this.socket) return;
      this.start().catch((err: unknown) => {
        this.deps.logger.error({ err }, 'could not start the WhatsApp socket');
        this.afterFailure(0, err instanceof Error ? err.message : String(err), false);
      });
    }, delayMs);
  }

  private async loggedOut(): Promise<void> {
    this.isOpen = false;
    this.qr = null;
    this.user = null;
    this.failure = undefined;
    this.attempts = 0;
    const auth = this.auth;
    this.auth = null;
    const { storage, instanceId } = this.deps.context;
    const clearing = (async () => {
      if (auth) await auth.clear();
      else await storage.authState.clear(instanceId);
      await this.deps.onLoggedOut();
    })();
    this.clearing = clearing;
    try {
      await clearing;
    } finally {
      if (this.clearing === clearing) this.clearing = null;
    }
  }

  private async teardown(): Promise<void> {
    this.cancelReconnect();
    const socket = this.socket;
    this.detach();
    if (socket) {
      await socket.end(undefined).catch((err: unknown) => this.deps.logger.debug({ err }, 'error while closing the socket'));
    }
  }

  /** Forgets the current socket and stops listening to it. */
  private detach(): void {
    this.unlisten?.();
    this.unlisten = null;
    // Downloads already running finish; the next socket gets its own dispatcher.
    this.dispatcher?.close().catch((err: unknown) => this.deps.logger.debug({ err }, 'error while closing the media dispatcher'));
    this.dispatcher = undefined;
    this.socket = null;
    this.isOpen = false;
    this.qr = null;
  }

  private cancelReconnect(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
  }

  private emitClose(code: number, reason: string, loggedOut: boolean, willReconnect: boolean): void {
    this.deps.context.emit({ type: 'connection', status: 'close', code, reason, loggedOut, willReconnect });
  }

  // ---- waiting for QR / open ------------------------------------------------------------------------

  private waitFor(timeoutMs: number): Promise<Outcome> {
    return new Promise<Outcome>((resolve, reject) => {
      const waiter: Waiter = {
        resolve: (outcome) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(outcome);
        },
        reject: (err) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          reject(err);
        },
      };
      const timer = setTimeout(() => {
        waiter.reject(new UpstreamError(`WhatsApp did not answer with a QR code or a connection within ${Math.round(timeoutMs / 1000)}s`, { retryable: true }));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  private notify(outcome: Outcome): void {
    for (const waiter of [...this.waiters]) waiter.resolve(outcome);
  }

  private rejectWaiters(err: Error): void {
    for (const waiter of [...this.waiters]) waiter.reject(err);
  }

  private connectedResult(): ConnectResult {
    return { phoneConnected: true, qrcode: '', image: '', user: this.user };
  }

  private qrResult(): ConnectResult {
    return { phoneConnected: false, qrcode: this.qr?.qr ?? '', image: this.qr?.image ?? '', user: null };
  }
}
