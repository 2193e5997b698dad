import { randomBytes, randomInt } from 'node:crypto';
import type { BinaryNode, proto } from '@whiskeysockets/baileys';
import type { ClientConnection, ConnectionHandler } from '../transport/connection.js';
import type { Account, CompanionDevice } from './model.js';
import { newSocialState } from './model.js';
import { SimPhone } from './phone.js';
import { SimError } from './errors.js';
import { StanzaLog } from './stanza-log.js';
import { NINTH_DIGIT } from '../verdicts.js';

export const SERVER = 's.whatsapp.net';

/** What a feature answers to an `<iq type="get|set">`: the result's children, or throws an `IqError`. */
export type IqHandler = (connection: ClientConnection, iq: BinaryNode) => BinaryNode[] | undefined | Promise<BinaryNode[] | undefined>;
export type StanzaHandler = (connection: ClientConnection, node: BinaryNode) => void | Promise<void>;

/** A refusal of an iq, answered as `<iq type="error"><error code text/></iq>`. */
export class IqError extends Error {
  constructor(readonly code: number, readonly text: string) {
    super(`${code} ${text}`);
  }
}

/**
 * One protocol feature: the iqs it answers (keyed by `xmlns`, or `xmlns/child` for one first child) and
 * the stanza tags it handles. Each lives in its own file under `features/`; `Network` dispatches to them.
 */
export interface Feature {
  iq?: Record<string, IqHandler>;
  stanzas?: Record<string, StanzaHandler>;
  /** A client finished its handshake: the first feature that returns true owns the login. */
  login?(connection: ClientConnection, payload: proto.ClientPayload): boolean;
  /** A logged-in or pairing connection closed. */
  closed?(connection: ClientConnection): void;
}

export interface AccountOptions {
  number: string;
  pushName?: string;
  business?: boolean;
  /**
   * A Brazilian mobile registered before the ninth digit: `number` is the 9-digit form people dial
   * (`5511987654321`) and WhatsApp files the account under the 8-digit form (`551187654321`), NINTH_DIGIT.
   */
  withoutNinthDigit?: boolean;
  /** The account is restricted: the server refuses its messages with `<ack error="463">` (RESTRICTED_ACCOUNT). */
  restricted?: boolean;
  /**
   * Its 1:1 messages reach other accounts' companions from its LID (`from="<lid>@lid"` with `sender_pn`), as
   * WhatsApp addresses chats moved to LIDs, instead of from its number.
   */
  lidAddressed?: boolean;
}

const QUERY_TIMEOUT_MS = 20_000;

/** A server-sent iq waiting for the client's answer. */
interface Waiter {
  connection: ClientConnection;
  resolve: (node: BinaryNode) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

let nextStanzaId = 1;

/** A fresh id for a stanza the server sends. */
export function stanzaId(): string {
  return `sim.${Date.now().toString(36)}.${(nextStanzaId++).toString(36)}`;
}

/** The simulated network: accounts and their devices, the connections, and the router between them. */
export class Network implements ConnectionHandler {
  readonly accounts = new Map<string, Account>();
  /** The stanzas each account's clients sent (the control API's inspection). */
  readonly stanzaLog = new StanzaLog();
  private readonly byLid = new Map<string, Account>();
  /** Accounts by the other form of their number (the 9-digit form of one registered without it). */
  private readonly byDialled = new Map<string, Account>();
  private readonly features: Feature[] = [];
  private readonly holds: Array<(device: CompanionDevice) => boolean> = [];
  private readonly iq = new Map<string, IqHandler>();
  private readonly stanzas = new Map<string, StanzaHandler[]>();
  private readonly waiting = new Map<string, Waiter>();
  private readonly queues = new Map<ClientConnection, Promise<void>>();

  use(feature: Feature): void {
    this.features.push(feature);
    for (const [xmlns, handler] of Object.entries(feature.iq ?? {})) this.iq.set(xmlns, handler);
    for (const [tag, handler] of Object.entries(feature.stanzas ?? {})) this.stanzas.set(tag, [...(this.stanzas.get(tag) ?? []), handler]);
  }

  createAccount(options: AccountOptions): Account {
    const given = String(options.number ?? '').replace(/^\+/, '');
    if (!/^[1-9]\d{7,14}$/.test(given)) throw new SimError(400, 'invalid_number', 'number must be 8 to 15 digits with country code, e.g. 5511987654321', { field: 'number', number: options.number });
    if (options.pushName !== undefined && (typeof options.pushName !== 'string' || options.pushName.length < 1 || options.pushName.length > 100)) {
      throw new SimError(400, 'invalid_push_name', 'pushName must be 1 to 100 characters', { field: 'pushName', pushName: options.pushName });
    }
    const eightDigits = options.withoutNinthDigit ? NINTH_DIGIT.value.mobile.exec(given) : undefined;
    if (eightDigits === null) {
      throw new SimError(400, 'invalid_number', 'withoutNinthDigit needs a Brazilian mobile number in its 9-digit form, 55 DD 9XXXXXXXX (13 digits)', { field: 'number', number: options.number });
    }
    const number = eightDigits ? `55${eightDigits[1]}${eightDigits[2]}` : given;
    for (const form of new Set([given, number])) {
      if (this.accounts.has(form) || this.byDialled.has(form)) throw new SimError(409, 'account_exists', `an account for ${form} already exists`, { number: form });
    }
    let lid: string;
    do lid = String(randomInt(10_000_000, 99_999_999)) + String(randomInt(100_000, 999_999)); while (this.byLid.has(lid));
    const account: Account = {
      number, lid, pushName: options.pushName ?? `Phone ${number.slice(-4)}`, business: options.business ?? false,
      dialled: eightDigits ? given : undefined, restricted: options.restricted ?? false, lidAddressed: options.lidAddressed ?? false,
      phone: new SimPhone(), companions: new Map(), nextDeviceId: 1, nextKeyIndex: 1, advRawId: randomInt(1, 2 ** 31), history: [], chats: new Map(),
      book: { contacts: new Map(), labels: new Map() },
      appState: { keyId: randomBytes(6), keyData: randomBytes(32), collections: new Map() }, social: newSocialState(),
    };
    this.accounts.set(number, account);
    this.byLid.set(lid, account);
    if (account.dialled) this.byDialled.set(account.dialled, account);
    return account;
  }

  /** The account of a number in either form (the control API's phones know their contacts by what they dial). */
  account(number: string): Account {
    const digits = String(number).replace(/^\+/, '');
    const account = this.accounts.get(digits) ?? this.byDialled.get(digits);
    if (!account) throw new SimError(404, 'account_not_found', `no account for number ${number}`, { number });
    return account;
  }

  /**
   * The account WhatsApp's number lookup (usync) answers for a JID: the account filed under it, or the one
   * whose other form it is (NINTH_DIGIT). Routing never takes the other form: a message to it reaches nobody.
   */
  lookup(jid: string): Account | undefined {
    const [user, server] = splitJid(jid);
    return this.accountOf(jid) ?? (server === 'lid' ? undefined : this.byDialled.get(user));
  }

  /** The account a user JID (`number@s.whatsapp.net`, `lid@lid`, with or without device) belongs to. */
  accountOf(jid: string): Account | undefined {
    const [user, server] = splitJid(jid);
    return server === 'lid' ? this.byLid.get(user) : this.accounts.get(user);
  }

  /** The companion behind a device JID (PN or LID form), if it is a linked companion. */
  companionOf(jid: string): CompanionDevice | undefined {
    const account = this.accountOf(jid);
    const device = deviceOf(jid);
    return device === 0 ? undefined : account?.companions.get(device);
  }

  /** The account and companion a connection is logged in as. */
  session(connection: ClientConnection): { account: Account; device: CompanionDevice } | undefined {
    if (!connection.deviceJid) return undefined;
    const account = this.accountOf(connection.deviceJid);
    const device = this.companionOf(connection.deviceJid);
    return account && device && device.connection === connection ? { account, device } : undefined;
  }

  /** Sends an iq to a client and waits for its answer (bounded by QUERY_TIMEOUT_MS). */
  query(connection: ClientConnection, node: BinaryNode): Promise<BinaryNode> {
    const id = node.attrs.id ?? stanzaId();
    node.attrs.id = id;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`client did not answer iq ${id}`));
      }, QUERY_TIMEOUT_MS);
      this.waiting.set(id, { connection, resolve, reject, timer });
      connection.send(node);
    });
  }

  /**
   * Sends a stanza to a companion now, or keeps it for its next login. A socket cut off by a blackhole
   * outage (`silenced`) counts as away: WhatsApp keeps a stanza until the device acks it (Baileys
   * Socket/messages-recv.js sendMessageAck for every message, receipt and notification), a device on a dead
   * link never does, and the server hands what it kept over at the next login, counted by `<ib><offline
   * count>` (whatsmeow connectionevents.go handleIB offline; Baileys CB:ib,,offline).
   */
  deliver(device: CompanionDevice, node: BinaryNode): void {
    if (device.connection?.isOpen && !device.connection.silenced && !this.holds.some((held) => held(device))) device.connection.send(node);
    else device.pending.push(node);
  }

  /** Stanzas for a device `held` answers true for wait in its queue behind what is there (an offline hand-over). */
  holdWhile(held: (device: CompanionDevice) => boolean): void {
    this.holds.push(held);
  }

  onLogin(connection: ClientConnection, payload: proto.ClientPayload): void {
    if (!this.features.some((feature) => feature.login?.(connection, payload))) connection.close();
  }

  /**
   * Stanzas of one connection are handled one after the other, in arrival order (a message before the
   * receipt that follows it, a pkmsg before the msg of the same session). Answers to the server's own
   * queries skip the queue, since a handler may be waiting for one.
   */
  onNode(connection: ClientConnection, node: BinaryNode): void {
    const { type, id = '' } = node.attrs;
    const account = connection.deviceJid ? this.accountOf(connection.deviceJid) : undefined;
    if (account) this.stanzaLog.record(account.number, connection.deviceJid!, node);
    if (node.tag === 'iq' && (type === 'result' || type === 'error')) {
      this.answered(connection, id, node);
      return;
    }
    const previous = this.queues.get(connection) ?? Promise.resolve();
    const next = previous.then(() => this.route(connection, node)).catch(() => connection.terminate());
    this.queues.set(connection, next);
  }

  onClose(connection: ClientConnection): void {
    this.queues.delete(connection);
    for (const [id, waiter] of this.waiting) {
      if (waiter.connection === connection) this.settle(id, waiter, new Error('the client disconnected'));
    }
    for (const feature of this.features) feature.closed?.(connection);
  }

  private answered(connection: ClientConnection, id: string, node: BinaryNode): void {
    const waiter = this.waiting.get(id);
    if (waiter?.connection === connection) this.settle(id, waiter, node);
  }

  private settle(id: string, waiter: Waiter, outcome: BinaryNode | Error): void {
    this.waiting.delete(id);
    clearTimeout(waiter.timer);
    if (outcome instanceof Error) waiter.reject(outcome);
    else waiter.resolve(outcome);
  }

  private async route(connection: ClientConnection, node: BinaryNode): Promise<void> {
    if (node.tag === 'iq') return this.routeIq(connection, node);
    for (const handler of this.stanzas.get(node.tag) ?? []) await handler(connection, node);
  }

  private async routeIq(connection: ClientConnection, iq: BinaryNode): Promise<void> {
    const { id = '', xmlns } = iq.attrs;
    const first = Array.isArray(iq.content) ? iq.content[0]?.tag : undefined;
    const handler = xmlns ? this.iq.get(`${xmlns}/${first}`) ?? this.iq.get(xmlns) : undefined;
    try {
      if (!handler) throw new IqError(501, 'feature-not-implemented');
      const content = await handler(connection, iq);
      connection.send({ tag: 'iq', attrs: { from: SERVER, type: 'result', id, t: unixNow() }, content });
    } catch (error) {
      const refusal = error instanceof IqError ? error : new IqError(500, 'internal-server-error');
      connection.send({ tag: 'iq', attrs: { from: SERVER, type: 'error', id }, content: [{ tag: 'error', attrs: { code: String(refusal.code), text: refusal.text } }] });
    }
  }
}

/** `[user, server]` of a JID, without agent or device. */
export function splitJid(jid: string): [string, string] {
  const at = jid.indexOf('@');
  const server = at < 0 ? '' : jid.slice(at + 1);
  const user = (at < 0 ? jid : jid.slice(0, at)).split(':')[0]!.split('_')[0]!;
  return [user, server];
}

/** The user JID (no device) of a JID. */
export function userJid(jid: string): string {
  const [user, server] = splitJid(jid);
  return `${user}@${server}`;
}

/** The device number of a JID (0 when absent). */
export function deviceOf(jid: string): number {
  const user = jid.split('@')[0] ?? '';
  const colon = user.indexOf(':');
  return colon < 0 ? 0 : Number(user.slice(colon + 1)) || 0;
}

export function unixNow(): string {
  return String(Math.floor(Date.now() / 1000));
}
