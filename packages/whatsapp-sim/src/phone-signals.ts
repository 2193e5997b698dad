import { Network } from './network/network.js';
import { SimError } from './network/errors.js';
import { createMediaCertificate } from './media/certificate.js';
import { MediaHost } from './media/host.js';
import { SignalLog, type SignalRecord } from './features/signals.js';
import { Presences, type ChatState } from './features/presence.js';
import { GroupPresences, isGroupJid } from './features/group-presence.js';
import type { Groups } from './features/groups.js';
import { Calls, type CallLink, type CallRecord } from './features/calls.js';
import { Profiles, type ProfileChange, type ProfileView } from './features/profile.js';
import type { GroupPictureTarget } from './features/group-pictures.js';
import { changeBlock, checkPrivacy, privacyFeature } from './features/privacy.js';
import { Business, type BusinessProfile, type CollectionView, type Product } from './features/business.js';
import { Orders, type Order } from './features/orders.js';

/**
 * What the simulator's phones do beside messages: presence and chat states, calls, profiles, block lists,
 * privacy settings and business profiles and catalogs (the `Simulator`'s base: its network, and the media
 * host profile pictures are served from). The `Simulator` registers these features last, with {@link useSignalFeatures}.
 */
export abstract class PhoneSignals {
  readonly network = new Network();
  protected readonly certificate = createMediaCertificate();
  protected readonly mediaHost: MediaHost;
  private readonly signalLog: SignalLog;
  private readonly presences: Presences;
  private groupPresences: GroupPresences | undefined;
  private readonly callLog: Calls;
  private readonly profiles: Profiles;
  private readonly business: Business;
  protected readonly orderBook: Orders;

  constructor(host: string) {
    this.mediaHost = new MediaHost(this.certificate, host);
    this.signalLog = new SignalLog(this.network);
    this.presences = new Presences(this.network, this.signalLog);
    this.callLog = new Calls(this.network, this.signalLog);
    this.profiles = new Profiles(this.network, this.mediaHost);
    this.business = new Business(this.network);
    this.orderBook = new Orders(this.network, this.business);
  }

  /**
   * Adds business, privacy, presence, call and profile stanzas to what the network answers; `groupPictures`
   * answers the picture iqs of groups, and `groups` gets presence and chat states in groups.
   */
  protected useSignalFeatures(groupPictures?: GroupPictureTarget, groups?: Groups): void {
    this.profiles.groupPictures = groupPictures;
    if (groups) {
      this.groupPresences = new GroupPresences(this.network, groups, this.signalLog, (account) => this.presences.isOnline(account));
      this.network.use(this.groupPresences.feature());
    }
    this.network.use(this.business.feature());
    this.network.use(this.orderBook.feature());
    this.network.use(privacyFeature(this.network));
    this.network.use(this.presences.feature());
    this.network.use(this.callLog.feature());
    this.network.use(this.profiles.feature());
  }

  /** The phone of `number` goes online or offline: companions subscribed to the account are told. */
  setPresence(number: string, presence: 'available' | 'unavailable'): { number: string; online: boolean; lastSeen: number } {
    return this.presences.phoneSets(number, presence);
  }

  /** Whether the account of `number` is online (its phone or a companion available) and when it was last seen. */
  presence(number: string): { number: string; online: boolean; lastSeen: number } {
    return this.presences.of(number);
  }

  /**
   * The phone of `number` types (`composing`), records audio (`recording`) or stops (`paused`) in its chat with
   * `to`: a number, or a group's JID (`id@g.us`) the phone is a member of.
   */
  sendChatState(number: string, to: string, state: ChatState): void {
    if (typeof to === 'string' && isGroupJid(to) && this.groupPresences) this.groupPresences.phoneChats(number, to, state);
    else this.presences.phoneChats(number, to, state);
  }

  /** The phone of `from` calls the account `to` (audio, or video): the offer rings on `to`'s companions. */
  call(from: string, to: string, options: { video?: boolean } = {}): CallRecord {
    return this.callLog.phoneCalls(from, to, options.video ?? false);
  }

  /** The phone of `number` ends a call it made or got (the other party's devices get `terminate`). */
  endCall(number: string, callId: string): CallRecord {
    return this.callLog.phoneEnds(number, callId);
  }

  /** The phone of `number` accepts a call that rings on it (the caller's devices get `accept`; 404 `call_not_found`, 409 `call_not_ringing`). */
  acceptCall(number: string, callId: string): CallRecord {
    return this.callLog.phoneAccepts(number, callId);
  }

  /** Calls `number` made or got, with each step (offer, accept, reject, terminate) and who took it. */
  calls(number: string): CallRecord[] {
    return this.callLog.of(number);
  }

  /** Call links the devices of `number` created, oldest first. */
  callLinks(number: string): CallLink[] {
    return this.callLog.linksOf(number);
  }

  /** Presences, chat states and call stanzas each device of `number` (its phone and companions) received. */
  signals(number: string): SignalRecord[] {
    return this.signalLog.of(this.network.account(number));
  }

  /** The phone of `number` changes its name, about text or picture (a JPEG; null removes it). */
  setProfile(number: string, change: ProfileChange): Promise<ProfileView> {
    return this.profiles.phoneChanges(number, change);
  }

  /** What others see of `number`'s profile: push name, about text, picture. */
  profile(number: string): ProfileView {
    return this.profiles.view(this.network.account(number));
  }

  /** The JPEG of `number`'s profile picture (404 picture_not_found). */
  profilePicture(number: string): Buffer {
    return this.profiles.picture(number);
  }

  /** The phone of `number` blocks or unblocks the account `target`; its companions are told (account_sync). */
  setBlocked(number: string, target: string, blocked: boolean): string[] {
    if (typeof blocked !== 'boolean') throw new SimError(400, 'invalid_request', 'blocked must be a boolean', { field: 'blocked' });
    const account = this.network.account(number);
    changeBlock(this.network, account, this.network.account(target), blocked ? 'block' : 'unblock');
    return this.blocklist(number);
  }

  /** The numbers `number` blocked. */
  blocklist(number: string): string[] {
    return [...this.network.account(number).social.blocked];
  }

  privacy(number: string): Record<string, string> {
    return { ...this.network.account(number).social.privacy };
  }

  /** The phone of `number` changes privacy settings (`{ last: 'none', … }`); all are checked before any applies. */
  setPrivacy(number: string, settings: Record<string, string>): Record<string, string> {
    const account = this.network.account(number);
    if (!settings || typeof settings !== 'object' || Array.isArray(settings) || Object.keys(settings).length === 0) {
      throw new SimError(400, 'invalid_privacy', 'settings must be an object of category: value', { field: 'settings' });
    }
    for (const [name, value] of Object.entries(settings)) checkPrivacy(name, value);
    Object.assign(account.social.privacy, settings);
    return this.privacy(number);
  }

  /** A business account's profile (404 `not_a_business` for others). */
  businessProfile(number: string): BusinessProfile {
    const account = this.network.account(number);
    const profile = this.business.profileOf(account);
    if (!profile) throw new SimError(404, 'not_a_business', `${number} is not a business account`, { number });
    return profile;
  }

  /** The business phone changes its profile (the fields given). */
  setBusinessProfile(number: string, change: BusinessProfile): BusinessProfile {
    return this.business.setProfile(this.network.account(number), change);
  }

  /** A business account's catalog, hidden products included. */
  catalog(number: string): Product[] {
    return this.business.catalog(this.network.account(number));
  }

  /** The business phone adds a product to its catalog. */
  addProduct(number: string, product: Omit<Product, 'id' | 'isHidden' | 'images'> & Partial<Pick<Product, 'isHidden' | 'images'>>): Product {
    return this.business.addProduct(this.network.account(number), product);
  }

  /** A business account's collections, each with its products. */
  collections(number: string): CollectionView[] {
    return this.business.collections(this.network.account(number));
  }

  /** The business phone groups products of its catalog (by id) into a new collection named `name`. */
  addCollection(number: string, name: string, productIds: string[]): CollectionView {
    return this.business.addCollection(this.network.account(number), name, productIds);
  }

  /** The orders customers placed with the business `number`, oldest first. */
  orders(number: string): Order[] {
    return this.orderBook.of(this.network.account(number));
  }
}
