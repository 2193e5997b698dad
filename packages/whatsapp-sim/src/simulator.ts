import type { KeyPair } from '@whiskeysockets/baileys';
import { PhoneMessaging } from './phone-messaging.js';
import { ClientConnection } from './transport/connection.js';
import { createServerIdentity, type ServerIdentity } from './transport/certificates.js';
import { Listener } from './transport/listener.js';
import { routeLibsignalConsole } from './libsignal-console.js';
import { releaseBaileysTimers } from './baileys-timers.js';
import type { AccountOptions } from './network/network.js';
import { SimError } from './network/errors.js';
import type { MediaInput } from './features/media.js';
import { viewOf, type AccountView } from './network/model.js';
import { Registrations, registrationFeature, type RefTimings } from './features/registration.js';
import { loginFeature, endStream } from './features/login.js';
import { LoginLimit, type LoginLimitOptions, type LoginLimitView } from './features/login-limit.js';
import { drainPreKeys, MAX_UPLOAD, prekeysFeature } from './features/prekeys.js';
import { accountBasicsFeature } from './features/account-basics.js';
import { usyncFeature } from './features/usync.js';
import type { SentMessage } from './features/messaging.js';
import { scanQr } from './features/pairing-qr.js';
import { announceDevices } from './features/device-list.js';
import { appStateFeature, applyChanges, type AppStateChange } from './features/app-state.js';
import { phoneStateOf, type PhoneStateView } from './features/chat-state.js';
import { enterPairingCode, pairingCodeFeature } from './features/pairing-code.js';
import { closeClient, Outages, type OutageMode, type OutageView } from './features/outages.js';
import { asControl, groupView, type GroupView } from './features/groups.js';
import type { MemberResult } from './features/group-adds.js';
import { addressingMode, type AddressingMode } from './features/group-addressing.js';
import { GroupPictures } from './features/group-pictures.js';
import { groupIqFeature } from './features/group-iq.js';
import { changeGroupInfo, type GroupInfoChange } from './features/group-info.js';
import { Communities, type RequestAction } from './features/communities.js';
import { StatusBroadcast } from './features/status.js';
import type { SeenStanza } from './network/stanza-log.js';
import { seedHistory, type HistoryOptions, type SeededHistory } from './features/history-seed.js';
import { issueCompanion, type IssuedCompanion, type IssueOptions } from './features/issue-companion.js';

export interface SimulatorOptions {
  /** Host to listen on; loopback unless you mean otherwise. */
  host?: string;
  /** Port of the WebSocket endpoint (0: any free port). */
  port?: number;
  /** The root key pair clients must trust (default: a fresh one per simulator). */
  rootKey?: KeyPair;
  /** QR ref count and lifetimes (default WhatsApp's: 6 refs, 60 s then 20 s each). */
  qrRefs?: RefTimings;
  /** A client must finish the Noise handshake within this (default 20 s). */
  handshakeTimeoutMs?: number;
  /** Logins beyond `max` within `windowMs` are ended with stream error 429 (default: no limit; LOGIN_RATE_LIMIT). */
  loginLimit?: LoginLimitOptions;
  /** How groups that clients create (w:g2 `create`) are addressed: `pn` (default) or `lid`, as WhatsApp creates groups now. */
  groupAddressing?: AddressingMode;
}

/** A device as the control API shows it. */
export type DeviceView = AccountView['devices'][number];

/**
 * The programmatic control API of a running simulator: accounts and their phones, linking, messages from
 * phones, outages and forced disconnects. The HTTP control API is a thin layer over this.
 */
export class Simulator extends PhoneMessaging {
  readonly identity: ServerIdentity;
  private readonly registrations: Registrations;
  private readonly communities: Communities;
  private readonly status: StatusBroadcast;
  private quietLibsignal?: () => void;
  private readonly listener: Listener;
  private readonly outages: Outages;
  private readonly loginLimit = new LoginLimit();
  private readonly connections = new Set<ClientConnection>();

  constructor(private readonly options: SimulatorOptions = {}) {
    super(options.host ?? '127.0.0.1');
    this.identity = createServerIdentity(options.rootKey);
    this.registrations = new Registrations(options.qrRefs);
    this.communities = new Communities(this.network, this.groups);
    this.status = new StatusBroadcast(this.network, this.groupMessages, this.messaging);
    const handshakeTimeoutMs = options.handshakeTimeoutMs ?? 20_000;
    this.listener = new Listener(options.host ?? '127.0.0.1', (socket) => {
      const connection = new ClientConnection(socket, this.identity, this.network, handshakeTimeoutMs);
      connection.latencyMs = this.outages.latencyMs;
      this.connections.add(connection);
      socket.once('close', () => this.connections.delete(connection));
    });
    this.outages = new Outages(this.listener, () => [...this.connections]);
    this.loginLimit.set(options.loginLimit);
    if (options.groupAddressing !== undefined) this.groups.clientAddressing = addressingMode(options.groupAddressing);
    const offline = this.offline;
    this.network.holdWhile((device) => offline.isDraining(device));
    this.network.use(loginFeature(this.network, this.loginLimit, offline));
    this.network.use(offline.feature(this.network));
    this.network.use(registrationFeature(this.network, this.registrations));
    this.network.use(prekeysFeature(this.network));
    this.network.use(accountBasicsFeature(this.network));
    this.network.use(usyncFeature(this.network));
    this.network.use(this.messaging.feature());
    this.network.use(pairingCodeFeature(this.registrations));
    this.network.use(appStateFeature(this.network));
    this.network.use(groupIqFeature(this.network, this.groups, this.communities));
    this.network.use(this.groupMessages.feature());
    this.network.use(this.status.feature());
    this.network.use(this.media.feature());
    this.network.use(this.mediaRetries.feature());
    this.useSignalFeatures(new GroupPictures(this.groups, this.mediaHost), this.groups);
  }

  async listen(): Promise<void> {
    // The phones' libsignal prints their sessions (keys included) to the console; a running simulator keeps it quiet.
    this.quietLibsignal ??= routeLibsignalConsole(() => undefined);
    // Its clients' processes end with their tests, not up to 60 s later (timers Baileys leaves behind).
    releaseBaileysTimers();
    await this.listener.listen(this.options.port ?? 0);
    await this.mediaHost.listen();
  }

  /** `ws://host:port/ws/chat`, the value for Baileys' `waWebSocketUrl`. */
  get url(): string {
    return `ws://${this.options.host ?? '127.0.0.1'}:${this.listener.port}/ws/chat`;
  }

  /** The media host's self-signed certificate (PEM): what `trustSimulatorMedia` or NODE_EXTRA_CA_CERTS adds. */
  get mediaCertificate(): string {
    return this.certificate.cert;
  }

  /** `host:port` of the media host, as `media_conn` names it. */
  get mediaHostname(): string {
    return this.mediaHost.hostname;
  }

  /** The media host's current upload token (what `media_conn` hands logged-in clients). */
  get mediaAuth(): string {
    return this.mediaHost.auth;
  }

  /** The public key clients must trust (`trustSimulatorRoot`). */
  get rootPublicKey(): Buffer {
    return Buffer.from(this.identity.root.public);
  }

  createAccount(options: AccountOptions): AccountView {
    return viewOf(this.network.createAccount(options));
  }

  listAccounts(): AccountView[] {
    return [...this.network.accounts.values()].map(viewOf);
  }

  getAccount(number: string): AccountView {
    return viewOf(this.network.account(number));
  }

  /** Clients waiting to be linked (connected without credentials), with their current QR refs. */
  pendingClients(): Array<{ platform: string; refs: string[]; pairingCodeFor: string | undefined }> {
    const now = Date.now();
    return this.registrations.all().map((r) => ({
      platform: r.platform, refs: r.refs.filter((x) => x.expiresAt > now).map((x) => x.ref), pairingCodeFor: r.pairingCode?.number,
    }));
  }

  /** The phone of `number` scans a QR a client shows; resolves once the client is linked (before its restart). */
  async scanQr(number: string, qr: string): Promise<DeviceView> {
    const device = await scanQr(this.network, this.registrations, number, qr);
    return this.getAccount(number).devices.find((d) => d.id === device.id)!;
  }


  /** The phone of `number` enters the 8-character code a client shows; resolves once the client is linked. */
  async enterPairingCode(number: string, code: string): Promise<DeviceView> {
    const device = await enterPairingCode(this.network, this.registrations, number, code);
    return this.getAccount(number).devices.find((d) => d.id === device.id)!;
  }

  /**
   * Issues a linked companion of `number` without a client: Baileys credentials and keys as a QR link and
   * first login would have left them, the device recorded server-side; `makeWASocket` with them logs in.
   */
  issueCompanion(number: string, options?: IssueOptions): IssuedCompanion {
    return issueCompanion(this.network, this.network.account(number), options);
  }

  /**
   * Hands out `count` of a linked device's one-time prekeys, as if that many new contacts fetched its key
   * bundle; below PREKEY_LOW the device is told to upload more. Answers how many are left.
   */
  drainPreKeys(number: string, deviceId: number, count: number): number {
    if (!Number.isInteger(count) || count < 1 || count > MAX_UPLOAD) throw new SimError(400, 'invalid_count', `count must be an integer from 1 to ${MAX_UPLOAD}`, { field: 'count' });
    return drainPreKeys(this.network, this.companionJid(number, deviceId), count);
  }

  /** How many one-time prekeys the server holds for a linked device. */
  preKeyCount(number: string, deviceId: number): number {
    return this.network.companionOf(this.companionJid(number, deviceId))!.keys.preKeys.size;
  }

  private companionJid(number: string, deviceId: number): string {
    const device = this.network.account(number).companions.get(deviceId);
    if (!device) throw new SimError(404, 'device_not_found', `${number} has no linked device ${deviceId}`, { number, deviceId });
    return device.jid;
  }

  /** The phone removes a linked device: its socket gets 401 device_removed and it can no longer log in. */
  removeDevice(number: string, deviceId: number): void {
    const account = this.network.account(number);
    const device = account.companions.get(deviceId);
    if (!device) throw new SimError(404, 'device_not_found', `${number} has no linked device ${deviceId}`, { number, deviceId });
    account.companions.delete(deviceId);
    if (device.connection) endStream(device.connection, 'deviceRemoved');
    announceDevices(this.network, account, 'remove', device);
  }

  /** Fills the phone's chat history, which each companion linked afterwards receives (`messaging-history.set`). */
  seedHistory(number: string, options: HistoryOptions): Promise<SeededHistory> {
    return seedHistory(this.media, this.network.account(number), options);
  }

  /**
   * The phone changes its app state (contacts, archive, pin, mute, labels): patches with valid MACs that its
   * companions fetch now (told by a server_sync notification) or on their initial sync.
   */
  changeAppState(number: string, changes: AppStateChange[]): Promise<Array<{ collection: string; version: number }>> {
    const account = this.network.account(number);
    return applyChanges(this.network, account, changes);
  }

  /**
   * What the phone of `number` shows after its own and its companions' app-state changes: each chat's state
   * (pinned, archived, muted, read or marked unread; a deleted chat is gone), its saved contacts and its labels.
   */
  phoneState(number: string): PhoneStateView {
    return phoneStateOf(this.network.account(number));
  }

  /**
   * The phone of `number` creates a group with the accounts `participants` (numbers not on the network are left out);
   * `addressingMode: 'lid'` makes it LID-addressed, as WhatsApp creates groups now (features/group-addressing.ts).
   */
  createGroup(number: string, subject: string, participants: string[], options: { addressingMode?: AddressingMode } = {}): GroupView {
    const creator = this.network.account(number);
    const mode = options.addressingMode === undefined ? undefined : addressingMode(options.addressingMode);
    const numbers = participants.map((p) => String(p).replace(/^\+/, ''));
    return groupView(asControl('create group', () => this.groups.create(creator, subject, numbers, mode ? { addressingMode: mode } : {})));
  }

  /** Every group, or those `number` is a member of. */
  listGroups(number?: string): GroupView[] {
    const account = number === undefined ? undefined : this.network.account(number);
    return this.groups.all().filter((g) => !account || g.members.has(account.number)).map(groupView);
  }

  getGroup(jid: string): GroupView {
    return groupView(asControl('group', () => this.groups.get(jid)));
  }

  /** The phone of `number` (an admin) adds, removes, promotes or demotes members; each number gets a status. */
  updateGroupMembers(number: string, jid: string, action: 'add' | 'remove' | 'promote' | 'demote', numbers: string[]): MemberResult[] {
    const actor = this.network.account(number);
    return asControl(`${action} members`, () => this.groups.changeMembers(this.groups.asAdmin(jid, actor), actor, action, numbers));
  }

  /** The phone of `number` (a member; an admin for settings or in a locked group) changes the group's subject, description or a setting. */
  changeGroup(number: string, jid: string, change: GroupInfoChange): GroupView {
    const actor = this.network.account(number);
    return groupView(asControl('change group', () => changeGroupInfo(this.groups, actor, jid, change)));
  }

  /**
   * The phone of `number` creates a community (and the server its announcement group) with the accounts
   * `participants`; `addressingMode: 'lid'` makes both LID-addressed, and the groups created in it after (400 for
   * another value than `pn`, `lid`).
   */
  createCommunity(number: string, subject: string, participants: string[], description?: string, options: { addressingMode?: AddressingMode } = {}): GroupView {
    const creator = this.network.account(number);
    const mode = options.addressingMode === undefined ? 'pn' : addressingMode(options.addressingMode);
    return groupView(asControl('create community', () => this.communities.create(creator, subject, description, participants.map((p) => String(p).replace(/^\+/, '')), false, mode)));
  }

  /** The phone of `number` (an admin of both) links a group to a community, or unlinks it. */
  linkGroup(number: string, communityJid: string, groupJid: string, linked: boolean): GroupView {
    const actor = this.network.account(number);
    asControl(linked ? 'link group' : 'unlink group', () => this.communities.link(actor, communityJid, groupJid, linked));
    return this.getGroup(groupJid);
  }

  /** The groups of a community, its announcement group first. */
  communityGroups(communityJid: string): GroupView[] {
    return asControl('community', () => this.communities.subGroups(this.groups.get(communityJid))).map(groupView);
  }

  /** The phone of `number` (an admin) turns join approval on or off. */
  setJoinApproval(number: string, jid: string, on: boolean): GroupView {
    const actor = this.network.account(number);
    asControl('join approval', () => this.communities.setJoinApproval(this.groups.asAdmin(jid, actor), actor, on));
    return this.getGroup(jid);
  }

  /** The JPEG of the group's picture (404 `picture_not_found`). */
  groupPicture(jid: string): Buffer {
    const { picture } = asControl('group', () => this.groups.get(jid));
    if (!picture) throw new SimError(404, 'picture_not_found', `${jid} has no picture`, { jid });
    return picture.data;
  }

  /** The phone of `number` (an admin) resets the group's invite link: the old code stops working (410 gone); the group with its new code. */
  revokeInvite(number: string, jid: string): GroupView {
    const actor = this.network.account(number);
    asControl('invite', () => this.groups.revokeInvite(this.groups.asAdmin(jid, actor), actor));
    return this.getGroup(jid);
  }

  /** The phone of `number` opens the group's invite link: it joins, or with approval on its request waits. */
  requestJoin(number: string, jid: string): { group: string; outcome: 'joined' | 'requested' } {
    const account = this.network.account(number);
    const group = asControl('group', () => this.groups.get(jid));
    return { group: group.jid, outcome: asControl('join', () => this.groups.join(group, account)) };
  }

  /** The phone of `number` (an admin) approves or rejects join requests: `[{ number, status }]`. */
  handleJoinRequests(number: string, jid: string, action: RequestAction, numbers: string[]): MemberResult[] {
    const actor = this.network.account(number);
    return asControl('join requests', () => this.communities.handleRequests(this.groups.asAdmin(jid, actor), actor, action, numbers));
  }

  /**
   * The phone of `from` posts a story the accounts `audience` see (their phones and companions): a text, or
   * an image or video it uploads (encrypted) to the media host first.
   */
  async postStatus(from: string, story: string | MediaInput, audience: string[]): Promise<SentMessage> {
    if (typeof story === 'string') return this.status.phonePosts(from, story, audience);
    if (story?.kind !== 'image' && story?.kind !== 'video') throw new SimError(400, 'invalid_media', 'a story\'s media is an image or a video', { field: 'kind' });
    this.network.account(from);
    return this.status.phonePosts(from, await this.media.upload(story), audience);
  }

  /** The stanzas the clients of `number` sent to the server, oldest first (optionally one tag only). */
  stanzas(number: string, tag?: string): SeenStanza[] {
    return this.network.stanzaLog.of(this.network.account(number).number, tag);
  }

  /** Starts an outage: `refuse`, `blackhole`, or a `slow` link delaying every frame `latencyMs` each way. */
  startOutage(mode: OutageMode, durationMs?: number, latencyMs?: number): Promise<OutageView> {
    return this.outages.start(mode, durationMs, latencyMs);
  }

  endOutage(): Promise<OutageView> {
    return this.outages.end();
  }

  outage(): OutageView {
    return this.outages.view();
  }

  /** Sets the login limit (logins over it get stream error 429), or removes it; answers the limit in force. */
  setLoginLimit(limit: LoginLimitOptions | undefined): LoginLimitView | undefined {
    return this.loginLimit.set(limit);
  }

  /** The login limit in force, with the logins it throttled since it was set. */
  loginLimitView(): LoginLimitView | undefined {
    return this.loginLimit.view();
  }

  /** Ends the socket of a logged-in device (`number:device@s.whatsapp.net`) with one of the supported codes. */
  closeClient(deviceJid: string, code: number): void {
    const device = this.network.companionOf(deviceJid);
    if (!device?.connection) throw new SimError(404, 'client_not_connected', `no client is logged in as ${deviceJid}`, { jid: deviceJid });
    closeClient(device.connection, code);
  }

  async stop(): Promise<void> {
    this.outages.clear();
    for (const connection of this.connections) connection.terminate();
    for (const registration of this.registrations.all()) this.registrations.remove(registration.connection);
    await this.listener.close();
    await this.mediaHost.close();
    this.quietLibsignal?.();
    this.quietLibsignal = undefined;
  }
}
