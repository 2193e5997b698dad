import { isGroupJid, jidUser, KeyedSerialQueue, USER_SUFFIX, type Logger, type Storage } from '@parley/core';
import { groupMemberNumbers } from './sandbox-groups.js';
import type { Packet } from './sandbox-packets.js';

/** A connected sandbox phone: receives packets. */
export interface SandboxPhone {
  readonly number: string;
  receive(packet: Packet): void;
}

const NUMBERS = 'sandbox:numbers';

/** Namespace of an instance's sandbox state; cleared with the instance (`<id>:` prefix). */
export function phoneNamespace(instanceId: string): string {
  return `${instanceId}:sandbox`;
}

/**
 * The simulated main-channel network shared by every sandbox instance of this server: numbers,
 * online phones, and a persistent mailbox per number for packets sent while it is offline (delivered
 * when it reconnects, as the real network does).
 */
export class SandboxNetwork {
  private readonly online = new Map<string, SandboxPhone>();
  /** Mailboxes by number and shared-state tasks by `task:<key>`, each run one at a time. */
  private readonly locks = new KeyedSerialQueue();

  constructor(
    private readonly storage: Storage,
    private readonly latencyMs: number,
    private readonly logger: Logger,
  ) {}

  /** Records which instance holds a number (persisted, so offline numbers stay reachable). */
  async register(number: string, instanceId: string): Promise<void> {
    const current = await this.storage.state.get<string>(NUMBERS, number);
    if (current !== instanceId) await this.storage.state.put(NUMBERS, number, instanceId);
  }

  /** Whether a number belongs to a sandbox instance that still exists. */
  async instanceOf(number: string): Promise<string | null> {
    const id = await this.storage.state.get<string>(NUMBERS, number);
    if (!id) return null;
    if (!(await this.storage.instances.get(id))) {
      await this.storage.state.delete(NUMBERS, number);
      return null;
    }
    return id;
  }

  /** Every number a still-existing sandbox instance holds (the network's directory). */
  async numbers(): Promise<string[]> {
    const entries = await this.storage.state.list<string>(NUMBERS);
    const held = await Promise.all(entries.map(async ({ id }) => ((await this.instanceOf(id)) ? id : null)));
    return held.filter((n): n is string => n !== null);
  }

  /** Phones subscribed to the presence of a number (spec 4.5 presence subscribe), by that number. */
  private readonly watchers = new Map<string, Set<string>>();

  /** Subscribes `subscriber` to `target`'s coming online and going offline. */
  watch(subscriber: string, target: string): void {
    let set = this.watchers.get(target);
    if (!set) this.watchers.set(target, (set = new Set()));
    set.add(subscriber);
  }

  /** Tells every online subscriber of `number` that it is now available or unavailable. */
  private announce(number: string, status: 'available' | 'unavailable'): void {
    for (const subscriber of this.watchers.get(number) ?? []) {
      const phone = this.online.get(subscriber);
      if (phone) setImmediate(() => phone.receive({ kind: 'presence', from: number, status }));
    }
  }

  /** Marks a phone online and hands it what waited in its mailbox, in order. */
  async attach(phone: SandboxPhone, instanceId: string): Promise<void> {
    this.online.set(phone.number, phone);
    this.announce(phone.number, 'available');
    const waiting = await this.locks.run(phone.number, async () => {
      const list = (await this.storage.state.get<Packet[]>(phoneNamespace(instanceId), 'mailbox')) ?? [];
      if (list.length) await this.storage.state.delete(phoneNamespace(instanceId), 'mailbox');
      return list;
    });
    for (const packet of waiting) phone.receive(packet);
  }

  /** Marks a phone offline. */
  detach(phone: SandboxPhone): void {
    if (this.online.get(phone.number) !== phone) return;
    this.online.delete(phone.number);
    this.announce(phone.number, 'unavailable');
  }

  isOnline(number: string): boolean {
    return this.online.has(number);
  }

  /** Numbers a message to a chat JID reaches: the user of a user JID, every member of a group; nobody for other JIDs. */
  async recipientsOf(jid: string): Promise<string[]> {
    if (jid.endsWith(USER_SUFFIX)) return [jidUser(jid)];
    if (isGroupJid(jid)) return groupMemberNumbers(this.storage, jid);
    return [];
  }

  /**
   * Carries a packet to a number after the simulated latency: straight to the phone when it is
   * online, into its mailbox when it is offline. Answers false for a number no sandbox instance
   * holds (an unreachable phone).
   */
  async send(to: string, packet: Packet): Promise<boolean> {
    if (packet.kind === 'presence') {
      const phone = this.online.get(to);
      if (phone) setImmediate(() => phone.receive(packet));
      return Boolean(phone);
    }
    const instanceId = this.online.has(to) ? 'online' : await this.instanceOf(to);
    if (!instanceId) return false;
    const deliver = async () => {
      const phone = this.online.get(to);
      if (phone) {
        phone.receive(packet);
        return;
      }
      const id = await this.instanceOf(to);
      if (!id) return;
      await this.locks.run(to, async () => {
        const ns = phoneNamespace(id);
        const list = (await this.storage.state.get<Packet[]>(ns, 'mailbox')) ?? [];
        list.push(packet);
        await this.storage.state.put(ns, 'mailbox', list);
      });
    };
    const run = () => deliver().catch((err: unknown) => this.logger.error({ err }, 'sandbox delivery failed'));
    if (this.latencyMs > 0) setTimeout(run, this.latencyMs).unref();
    else setImmediate(run);
    return true;
  }

  /**
   * Runs `fn` after every earlier task of the same key: read-modify-write of shared sandbox state
   * (groups, catalogs) without lost updates, the server being one process.
   */
  serialize<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.locks.run(`task:${key}`, fn);
  }
}
