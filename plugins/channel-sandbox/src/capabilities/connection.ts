import { randomBytes, randomInt } from 'node:crypto';
import QRCode from 'qrcode';
import { ConflictError, ValidationError, type AccountUser, type ConnectionCapability, type ConnectionState, type ConnectResult } from '@parley/core';
import { isGroupJid, jidUser } from '@parley/whatsapp-proto';
import { PRESENCE_SUBSCRIPTIONS } from './chats.js';
import { DeviceInbound } from '../device-inbound.js';
import type { SandboxDevice } from '../sandbox-device.js';

const PAIRING_ALPHABET = 'ABCDEFGHJKLMNPQRSTVWXYZ23456789';

/** Work a phone does only while it is online, such as timing out its unanswered calls. */
export interface WhileOnline {
  /** The phone came online: linked, reconnected, or restored after a server restart. */
  online(): Promise<void>;
  /** The phone went offline: restarted, logged out, stopped with the server or deleted. */
  offline(): void;
}

/**
 * Connection of a sandbox phone: a real QR code (PNG data URI) refreshed on a timer, a pairing code,
 * and a "scan" (route or timer) that links the session. Linked sessions reconnect without a QR.
 */
export class SandboxConnection implements ConnectionCapability {
  private qr?: { value: string; image: string };
  private pairingCode?: string;
  private refreshes = 0;
  /** Counts stops: a connect under way when one happens leaves the phone offline. */
  private epoch = 0;
  private timers: NodeJS.Timeout[] = [];
  private user: AccountUser | null = null;
  /** The phone as the network hands it packets while online. */
  private readonly phone: DeviceInbound;

  constructor(
    private readonly device: SandboxDevice,
    private readonly whileOnline: readonly WhileOnline[] = [],
  ) {
    this.phone = new DeviceInbound(device);
  }

  state(): ConnectionState {
    const connected = this.device.connected;
    const status = connected ? 'open' : this.pairingCode ? 'waiting_for_pairing_code' : this.qr ? 'waiting_for_qr_scan' : 'disconnected';
    return { phoneConnected: connected, user: connected ? this.user : null, status };
  }

  async connect(): Promise<ConnectResult> {
    const epoch = this.epoch;
    if (!this.device.connected && (await this.device.session()).linked) await this.open();
    if (this.device.connected) return { phoneConnected: true, qrcode: '', image: '', user: this.user };
    // Stopped meanwhile: no QR code and no pairing timers (an auto-scan would bring the phone online after the stop).
    if (this.epoch !== epoch) return { phoneConnected: false, qrcode: '', image: '', user: null };
    if (!this.qr) {
      this.refreshes = 0;
      await this.newQr();
      if (this.epoch !== epoch) {
        this.reset();
        return { phoneConnected: false, qrcode: '', image: '', user: null };
      }
      this.schedulePairingTimers();
    }
    return { phoneConnected: false, qrcode: this.qr!.value, image: this.qr!.image, user: null };
  }

  async requestPairingCode(phoneNumber: string): Promise<string> {
    if (this.device.connected) throw new ConflictError('the instance is already connected', 'already_connected');
    if (phoneNumber !== this.device.number) {
      throw new ValidationError(`body.phoneNumber must be this sandbox instance's number (${this.device.number})`);
    }
    const chars = Array.from({ length: 8 }, () => PAIRING_ALPHABET[randomInt(PAIRING_ALPHABET.length)]).join('');
    this.pairingCode = `${chars.slice(0, 4)}-${chars.slice(4)}`;
    if (!this.timers.length) this.schedulePairingTimers();
    return this.pairingCode;
  }

  /**
   * Simulates the phone scanning the QR (or entering the pairing code). Throws 409 when nothing is
   * waiting, 400 for a wrong pairing code.
   */
  async scan(code?: string): Promise<AccountUser> {
    if (this.device.connected) throw new ConflictError('the instance is already connected', 'already_connected');
    if (!this.qr && !this.pairingCode) {
      throw new ConflictError('no QR code or pairing code is waiting: call POST /{key}/instance (or pairing-code) first', 'not_pairing');
    }
    if (code !== undefined && code.toUpperCase() !== this.pairingCode) throw new ValidationError('body.code does not match the pairing code');
    return this.link();
  }

  /** Links the session (a scan, a pairing code entered, a mobile registration verified) and connects. */
  async link(): Promise<AccountUser> {
    await this.device.saveSession({ linked: true });
    await this.open();
    return this.user!;
  }

  async restart(): Promise<void> {
    if (!(await this.device.session()).linked) throw new ConflictError('the instance is not paired: connect it first', 'not_connected');
    if (this.device.connected) this.close(515, 'restart_required', false, true);
    await this.open();
  }

  async resync(): Promise<void> {
    this.device.requireConnected();
    const { storage, instanceId } = this.device.ctx;
    const [chats, contacts] = await Promise.all([storage.chats.list(instanceId), storage.contacts.list(instanceId)]);
    this.device.ctx.emit({ type: 'history', messages: [], chats, contacts, isLatest: true, progress: 100 });
  }

  async logout(): Promise<void> {
    const wasLinked = (await this.device.session()).linked || this.device.connected;
    this.reset();
    await this.device.saveSession({ linked: false });
    if (wasLinked) this.close(401, 'logged_out', true, false);
  }

  /**
   * Stops timers and goes offline without logging out; resolves once the network recorded the link
   * closed. It does not wait for a connect under way (its storage calls may hang in a partition, past
   * the lease that allowed it): that connect sees the stop and leaves the phone offline.
   */
  async stop(): Promise<void> {
    this.epoch++;
    this.reset();
    for (const work of this.whileOnline) work.offline();
    this.device.connected = false;
    await this.device.network.detach(this.phone);
  }

  private reset(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers = [];
    this.qr = undefined;
    this.pairingCode = undefined;
  }

  private close(code: number, reason: string, loggedOut: boolean, willReconnect: boolean): void {
    for (const work of this.whileOnline) work.offline();
    this.device.connected = false;
    void this.device.network.detach(this.phone);
    this.device.ctx.emit({ type: 'connection', status: 'close', code, reason, loggedOut, willReconnect });
  }

  private async open(): Promise<void> {
    this.reset();
    const epoch = this.epoch;
    const current = () => this.epoch === epoch;
    this.user = await this.device.user();
    if (!current()) return;
    this.device.connected = true;
    this.device.ctx.emit({ type: 'connection', status: 'open', code: 200, user: this.user });
    await this.device.network.register(this.device.number, this.device.ctx.instanceId);
    // Presence subscriptions survive restarts: the phone watches its contacts again when it connects.
    const subscriptions = (await this.device.ctx.storage.state.get<string[]>(this.device.namespace, PRESENCE_SUBSCRIPTIONS)) ?? [];
    for (const jid of subscriptions) if (!isGroupJid(jid)) this.device.network.watch(this.device.number, jidUser(jid));
    if (!current()) return;
    // Stopped while its link was being recorded, the phone does not go online; stopped later, the stop takes it offline.
    await this.device.network.attach(this.phone, current);
    if (!current()) return;
    // After the inbox: signals that reached the phone while it was away count before its own time-outs.
    for (const work of this.whileOnline) await work.online();
  }

  private async newQr(): Promise<void> {
    const value = `2@${randomBytes(24).toString('base64')},${randomBytes(32).toString('base64')},sandbox:${this.device.number}`;
    const image = await QRCode.toDataURL(value, { errorCorrectionLevel: 'L', margin: 1 });
    this.qr = { value, image };
    this.device.ctx.emit({ type: 'qrcode', qr: value, image });
  }

  private schedulePairingTimers(): void {
    const { autoScanMs, qrRefreshMs, maxQrRefreshes } = this.device.options;
    if (autoScanMs > 0) {
      this.timers.push(setTimeout(() => {
        this.scan().catch((err: unknown) => this.device.ctx.logger.warn({ err }, 'sandbox auto-scan failed'));
      }, autoScanMs).unref());
    }
    const refresh = () => {
      if (!this.qr) return;
      if (this.refreshes >= maxQrRefreshes) {
        this.reset();
        this.device.ctx.emit({ type: 'connection', status: 'close', code: 408, reason: 'qr_timeout', loggedOut: false, willReconnect: false });
        return;
      }
      this.refreshes++;
      this.newQr().then(() => this.timers.push(setTimeout(refresh, qrRefreshMs).unref()),
        (err: unknown) => this.device.ctx.logger.error({ err }, 'sandbox QR refresh failed'));
    };
    this.timers.push(setTimeout(refresh, qrRefreshMs).unref());
  }
}
