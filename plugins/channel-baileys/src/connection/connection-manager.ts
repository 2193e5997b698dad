import {
  ConflictError, ServiceUnavailableError, type AccountUser, type ConnectResult,
  type ConnectionError, type ConnectionState, type ConnectionStatus,
} from '@parley/core';
import { DisconnectReason, type ConnectionState as WAConnectionState } from '@whiskeysockets/baileys';
import { parseProxy, redactProxy } from '@parley/net';
import type { Dispatcher } from 'undici';
import type { BaileysSocket } from '../socket.js';
import { upstream } from '../util/errors.js';
import { nextAttempt, reconnectDelay } from './backoff.js';
import type { ConnectionDeps } from './connection-deps.js';
import type { LinkMethod } from './browser-identity.js';
import { disconnectInfo, QR_EXPIRED, type DisconnectInfo } from './disconnect-reason.js';
import { mediaDispatcher } from './media-dispatcher.js';
import { untrustedServer } from './server-certificate.js';
import { Session, SessionLoggedOut } from './session.js';
import { accountUser, socketConfig, subscribe } from './socket-config.js';
import { formatPairingCode, pairingDigits, unreachable } from './pairing.js';
import { Waiters } from './waiters.js';

/** Answer of a connect that got neither a QR nor the open connection; `state()` says what goes on. */
const NOT_OPEN: ConnectResult = Object.freeze({ phoneConnected: false, qrcode: '', image: '', user: null });

/**
 * Owns the Baileys socket of one instance: starts it with the stored auth state and the instance's
 * proxy, answers QR codes and pairing codes, reconnects after a transient close for as long as it
 * lasts (capped exponential backoff with jitter), stops on a close no retry can fix (440, 403, 411)
 * and on a QR code left unscanned, and clears the session on logout (401).
 */
export class ConnectionManager {
  /** The chain of connection updates being handled, in arrival order. */
  private updates: Promise<void> = Promise.resolve();
  private socket: BaileysSocket | null = null;
  /** Downloads of the current socket: checked addresses only, through the same proxy as the socket. */
  private dispatcher: Dispatcher | undefined;
  private unlisten: (() => void) | null = null;
  /** The instance's Baileys session; replaced only while no socket runs (a session import). */
  readonly session: Session;
  private isOpen = false;
  private user: AccountUser | null = null;
  private qr: { qr: string; image: string } | null = null;
  /** A pairing code was handed out on the current socket. */
  private pairing = false;
  /** What sockets are started for until the connection opens: a pairing code needs its own identity. */
  private linkMethod: LinkMethod = 'qr';
  private failure: ConnectionState['failure'];
  private lastError: ConnectionError | undefined;
  /** Reconnection attempts since the connection last opened. */
  private attempts = 0;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly waiters = new Waiters();
  private stopped = false;
  private healthSeeded = false;

  constructor(private readonly deps: ConnectionDeps) {
    this.session = new Session(deps.context, deps.options.keyCacheSize);
  }

  state(): ConnectionState {
    return {
      phoneConnected: this.isOpen,
      user: this.user,
      status: this.status(),
      ...(this.failure ? { failure: { ...this.failure } } : {}),
      ...(this.lastError ? { lastError: { ...this.lastError } } : {}),
    };
  }

  /**
   * The undici dispatcher of media downloads (private addresses refused when connecting, through the
   * instance's proxy when it has one); undefined before the first socket.
   */
  downloadDispatcher(): Dispatcher | undefined {
    return this.dispatcher;
  }

  /** The open socket; ConflictError (409) while the connection is not open. */
  openSocket(): BaileysSocket {
    if (!this.socket || !this.isOpen) throw new ConflictError('the WhatsApp connection is not open', 'not_connected');
    return this.socket;
  }

  /**
   * Answers the current QR, the open connection, or — when WhatsApp answered neither within
   * `qrWaitMs` or the attempt failed — `phoneConnected: false` without a QR; `state()` then says
   * what the connection is doing and why the last attempt failed.
   */
  async connect(): Promise<ConnectResult> {
    this.stopped = false;
    let retried = false;
    let started = false;
    for (;;) {
      if (this.stopped) throw new ServiceUnavailableError('the instance was stopped');
      if (this.isOpen && this.socket) return { phoneConnected: true, qrcode: '', image: '', user: this.user };
      if (this.qr && this.socket) return { phoneConnected: false, qrcode: this.qr.qr, image: this.qr.image, user: null };
      // One attempt per call: a socket that closed while being set up is reported, not restarted.
      if (!this.socket && started) return NOT_OPEN;
      if (!this.socket) {
        started = true;
        this.resetAttempts();
        this.linkMethod = 'qr';
        await this.start();
        continue;
      }
      try {
        const outcome = await this.waiters.wait(this.deps.options.qrWaitMs);
        if (outcome !== 'open' && outcome !== 'qr') return NOT_OPEN;
      } catch (err) {
        // Stored creds that WhatsApp no longer accepts were cleared: one fresh start gets a new QR.
        if (!(err instanceof SessionLoggedOut) || retried) throw err;
        retried = true;
        started = false;
      }
    }
  }

  async requestPairingCode(phoneNumber: string): Promise<string> {
    const digits = pairingDigits(phoneNumber);
    this.stopped = false;
    if (this.isOpen || this.session.paired()) {
      throw new ConflictError('the instance is already paired; log out before pairing another number', 'already_connected');
    }
    if (this.linkMethod !== 'pairing_code') {
      this.linkMethod = 'pairing_code';
      // A socket showing QR codes announced `browserName`, which WhatsApp refuses for a pairing code.
      if (this.socket) await this.teardown();
    }
    if (!this.socket) {
      this.resetAttempts();
      await this.start();
    }
    if (this.stopped || !this.socket) throw new ServiceUnavailableError('the instance was stopped');
    // WhatsApp takes a pairing-code request once the login handshake is ready, which the first QR marks.
    if (!this.qr && !this.isOpen) {
      const outcome = await this.waiters.wait(this.deps.options.qrWaitMs);
      if (outcome === 'closed' || outcome === 'timeout') throw unreachable(this.lastError, !this.failure);
    }
    if (this.isOpen) throw new ConflictError('the instance connected with its stored session', 'already_connected');
    const socket = this.socket;
    if (!socket) throw unreachable(this.lastError, !this.failure);
    const code = await upstream('the pairing code request', () => socket.requestPairingCode(digits));
    if (socket === this.socket) this.pairing = true;
    return formatPairingCode(code);
  }

  async restart(): Promise<void> {
    this.stopped = false;
    await this.teardown();
    this.resetAttempts();
    await this.start();
  }

  async logout(): Promise<void> {
    const socket = this.socket;
    const wasOpen = this.isOpen;
    const hadSession = wasOpen || this.user !== null || socket !== null || this.session.current()?.restored === true;
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
    this.lastError = undefined;
    if (hadSession) this.emitClose(DisconnectReason.loggedOut, 'loggedOut', true, false);
  }

  /** Resolves when every connection update received so far is handled (QR images rendered, events emitted). */
  async idle(): Promise<void> {
    let current: Promise<void>;
    do {
      current = this.updates;
      await current;
    } while (current !== this.updates);
  }

  /** Closes the socket and timers, keeping the session. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.teardown();
    this.waiters.rejectAll(new ServiceUnavailableError('the instance was stopped'));
  }

  private status(): ConnectionStatus {
    if (this.isOpen) return 'open';
    if (this.socket && this.qr) return this.pairing ? 'waiting_for_pairing_code' : 'waiting_for_qr_scan';
    if (this.socket || this.reconnectTimer) return 'connecting';
    return this.failure ? 'stopped' : 'disconnected';
  }

  /** An explicit connect starts over: no failure, no pending retry, a full attempt budget. */
  private resetAttempts(): void {
    this.cancelReconnect();
    this.failure = undefined;
    this.attempts = 0;
  }

  private async start(): Promise<void> {
    const { context, options } = this.deps;
    const instance = await context.instance();
    const proxy = parseProxy(instance.proxy);
    if (this.stopped) return;
    if (instance.proxy) this.deps.logger.info({ proxy: redactProxy(instance.proxy) }, 'connecting through proxy');
    const auth = await this.session.load();
    // stop() may have run while storage was read; a socket made now would outlive the adapter.
    if (this.stopped) return;
    // The stored status seeds the monitor once; afterwards the monitor is the source of truth.
    if (!this.healthSeeded) this.deps.health.reset(instance.health);
    this.healthSeeded = true;
    const refusal = await untrustedServer(this.deps.options, proxy !== undefined, this.deps.logger);
    if (refusal) return this.refuse(refusal);
    if (this.stopped) return;
    const dispatcher = mediaDispatcher({
      proxy, allowPrivate: this.deps.allowPrivateUrls, proxyGuard: this.deps.proxyGuard, ...(this.deps.mediaTls ? { tls: this.deps.mediaTls } : {}),
    });
    const config = socketConfig({
      context, options, logger: this.deps.logger, auth, proxy, proxyGuard: this.deps.proxyGuard, downloads: dispatcher,
      groupCache: this.deps.groupCache, socket: () => this.socket, linkMethod: this.linkMethod,
    });
    const socket = this.deps.socketFactory(config);
    this.socket = socket;
    this.dispatcher = dispatcher;
    this.unlisten = subscribe(socket, {
      events: this.deps.listen,
      // Updates are handled one after another, in the order Baileys sent them (QR rendering is async).
      update: (update) => {
        this.updates = this.updates.then(() => this.onUpdate(socket, update)).catch((err: unknown) =>
          this.deps.context.logger.error({ err }, 'connection update failed'));
      },
      creds: () => {
        auth.saveCreds().catch((err: unknown) => this.deps.logger.error({ err }, 'failed to store WhatsApp credentials'));
      },
    });
  }

  private async onUpdate(socket: BaileysSocket, update: Partial<WAConnectionState>): Promise<void> {
    if (socket !== this.socket) return;
    if (update.reachoutTimeLock) this.deps.health.timelock(update.reachoutTimeLock);
    if (update.qr) {
      const image = await this.deps.qrImage(update.qr);
      if (socket !== this.socket) return;
      this.qr = { qr: update.qr, image };
      this.deps.context.emit({ type: 'qrcode', qr: update.qr, image });
      this.waiters.notify('qr');
    }
    if (update.connection === 'open') this.opened(socket);
    if (update.connection === 'close') await this.closed(update.lastDisconnect?.error);
  }

  private opened(socket: BaileysSocket): void {
    this.isOpen = true;
    this.qr = null;
    this.pairing = false;
    this.linkMethod = 'qr';
    this.attempts = 0;
    this.failure = undefined;
    this.lastError = undefined;
    this.user = accountUser(socket.user);
    if (this.user) this.deps.context.emit({ type: 'connection', status: 'open', code: 200, user: this.user });
    this.deps.health.connectionOpened();
    this.waiters.notify('open');
    socket.fetchAccountReachoutTimelock().catch((err: unknown) => this.deps.logger.debug({ err }, 'could not read the reach-out timelock'));
  }

  private async closed(error: unknown): Promise<void> {
    const wasOpen = this.isOpen;
    this.detach();
    const info = disconnectInfo(error);
    this.lastError = { code: info.code, reason: info.reason, ...(info.cause ? { cause: info.cause } : {}), message: info.message, at: this.deps.now() };
    if (this.stopped) return;
    if (await this.endedPairing(info)) return;
    if (info.code === DisconnectReason.loggedOut) {
      await this.loggedOut();
      this.emitClose(info.code, info.reason, true, false);
      this.waiters.rejectAll(new SessionLoggedOut());
      return;
    }
    if (info.final) return this.stopFor(info);
    this.afterFailure(info, wasOpen);
  }

  /**
   * A pairing code that went unused ends the pairing, not the session: the QR refs run out (408), or
   * a socket restored with the pending number fails its login (401). Either way the pending pairing
   * is forgotten (keys kept) and the next socket shows a QR again; nothing is logged out.
   */
  private async endedPairing(info: DisconnectInfo): Promise<boolean> {
    if (info.code !== DisconnectReason.loggedOut && info.code !== DisconnectReason.timedOut) return false;
    if (!(await this.session.forgetPendingPairing())) return false;
    this.deps.logger.info({ code: info.code }, 'the pairing code was not used; waiting for pairing again');
    // The refused login is part of the pairing ending, not a failed attempt; after an expired code
    // the next socket shows a QR code (whose own expiry then stops the connection).
    if (info.code === DisconnectReason.loggedOut) this.schedule(0);
    else this.afterFailure(info, false);
    return true;
  }

  /** A server whose certificate is not trusted: no socket is made, and nothing retries. */
  private refuse(info: DisconnectInfo): void {
    this.lastError = { code: info.code, reason: info.reason, ...(info.cause ? { cause: info.cause } : {}), message: info.message, at: this.deps.now() };
    this.stopFor(info);
  }

  /** A close no reconnection can fix: report it once and stay down until an explicit connect. */
  private stopFor(info: DisconnectInfo): void {
    this.failure = { code: info.code, reason: info.reason, attempts: this.attempts };
    if (info.code === DisconnectReason.forbidden) this.deps.health.connectionForbidden();
    // Nobody scanning the QR code in time is no fault.
    const level = info.reason === QR_EXPIRED ? 'warn' : 'error';
    this.deps.logger[level]({ code: info.code, reason: info.reason }, `WhatsApp connection stopped: ${info.message}`);
    this.emitClose(info.code, info.reason, false, false);
    this.waiters.notify('closed');
  }

  /**
   * Schedules the next attempt. Transient closes are retried for good: an account is worth
   * reconnecting after any outage, and the delay is capped at `maxDelayMs`, so a long one costs one
   * attempt per `maxDelayMs`. A rate-limited close (429) backs off further at once (`nextAttempt`).
   */
  private afterFailure(info: Pick<DisconnectInfo, 'code' | 'reason'>, wasOpen: boolean): void {
    if (this.stopped) return;
    const { code, reason } = info;
    // Right after a QR scan WhatsApp asks for a new connection: part of the login, not a failure.
    if (code === DisconnectReason.restartRequired) {
      this.deps.logger.info('WhatsApp asked for a restart after pairing; reconnecting');
      return this.schedule(0);
    }
    this.attempts = nextAttempt(this.attempts, code);
    const delay = reconnectDelay(this.deps.options.reconnect, this.attempts, this.deps.random);
    this.deps.logger.warn({ code, reason, attempt: this.attempts, delayMs: delay }, 'WhatsApp connection closed; reconnecting');
    if (wasOpen) this.emitClose(code, reason, false, true);
    this.schedule(delay);
    this.waiters.notify('closed');
  }

  private schedule(delayMs: number): void {
    this.cancelReconnect();
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this.stopped || this.socket) return;
      this.start().catch((err: unknown) => {
        this.deps.logger.error({ err }, 'could not start the WhatsApp socket');
        const message = err instanceof Error ? err.message : String(err);
        this.lastError = { code: 0, reason: message, message, at: this.deps.now() };
        this.afterFailure({ code: 0, reason: message }, false);
      });
    }, delayMs);
  }

  private async loggedOut(): Promise<void> {
    this.isOpen = false;
    this.qr = null;
    this.user = null;
    this.failure = undefined;
    this.attempts = 0;
    this.linkMethod = 'qr';
    await this.session.clear(() => this.deps.onLoggedOut());
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
    this.pairing = false;
  }

  private cancelReconnect(): void {
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
  }

  private emitClose(code: number, reason: string, loggedOut: boolean, willReconnect: boolean): void {
    this.deps.context.emit({ type: 'connection', status: 'close', code, reason, loggedOut, willReconnect });
  }
}
