import { KeyedSerialQueue, newUlid, systemClock, type Clock, type Logger, type Storage } from '@parley/core';
import { isGroupJid, jidUser, USER_SUFFIX } from '@parley/whatsapp-proto';
import { SandboxLinks } from './sandbox-links.js';
import type { SandboxOptions } from './sandbox.options.js';
import { SandboxRelay } from './sandbox-relay.js';
import { groupMemberNumbers } from './sandbox-group-state.js';
import type { Packet, PresencePacket } from './sandbox-packets.js';

/** A connected sandbox phone: receives packets. */
export interface SandboxPhone {
  readonly number: string;
  /** The instance the phone belongs to (its inbox lives in that instance's state). */
  readonly instanceId: string;
  /**
   * Takes a packet in. Resolves once everything the packet caused is written to storage (its events
   * processed by the server, the answers it sends, such as a delivery receipt, handed to the network):
   * only then does the network forget the packet. `replayed` marks a packet taken from the inbox when
   * the phone came online: a previous process may have handed it over already and died before
   * forgetting it, so the phone must not act on it twice. Rejects with {@link PhoneWentOfflineError}
   * when the phone was stopped before the server had handled what the packet caused (a stopped
   * instance's late events may be dropped): the packet then stays in the inbox.
   */
  receive(packet: Packet, replayed: boolean): Promise<void>;
}

/** A phone went offline (stopped) while it handled a packet: {@link SandboxPhone.receive} rejects with it, and the packet stays in the inbox. */
export class PhoneWentOfflineError extends Error {
  constructor(instanceId: string) {
    super(`the sandbox phone of ${instanceId} went offline while handling a packet; the packet waits for its next connection`);
  }
}

const NUMBERS = 'sandbox:numbers';
/** Pauses between reads of an inbox that failed after the link to the other processes came back. */
const REDRAIN_DELAYS_MS = [500, 1000, 2000, 4000, 8000];

/** Namespace of an instance's sandbox state; cleared with the instance (`<id>:` prefix). */
export function phoneNamespace(instanceId: string): string {
  return `${instanceId}:sandbox`;
}

/** Namespace of a phone's inbox: one document per packet on its way to the phone, keyed by a ULID (arrival order). */
export function inboxOf(instanceId: string): string {
  return `${phoneNamespace(instanceId)}:inbox`;
}

/**
 * The simulated main-channel network shared by every sandbox instance of this server: numbers,
 * online phones, and a persistent inbox per phone.
 *
 * Every packet but a presence is written to the receiving phone's inbox before {@link send} resolves
 * (so before the API answers the send that caused it: the server flushes storage before answering),
 * then handed to the phone if it is online, and deleted once the phone has stored what it caused. A
 * phone that is offline gets its inbox when it comes online, as the real network keeps messages for
 * a phone that is away; so does a phone restored after a crash, which gets every packet the dead
 * process had not finished with. The network is as durable as the storage it runs on.
 *
 * Each packet reaches a phone once per process: the inbox documents written by this process wait in
 * {@link scheduled} until their hand-over and in {@link holding} until the phone is done with them,
 * and the inbox read when a phone comes online skips both.
 *
 * On a store that several processes share and that offers signals (Redis), the network spans them:
 * a packet for a phone online on another process is written to its inbox as always, and a
 * {@link SandboxRelay} wake-up tells that process to hand it over; presences and who is online
 * travel the same way. Without signals the network is this process's alone.
 */
export class SandboxNetwork {
  private readonly online = new Map<string, SandboxPhone>();
  /** The same phones by instance id (wake-ups from other processes name the instance). */
  private readonly onlineInstances = new Map<string, SandboxPhone>();
  /** Link to the network's other processes, when the store has signals. */
  private readonly relay?: SandboxRelay;
  /** Shared-state tasks by `task:<key>`, each run one at a time. */
  private readonly locks = new KeyedSerialQueue();
  /** Inbox keys written by this process whose hand-over has not run yet. */
  private readonly scheduled = new Set<string>();
  /** Inbox keys handed to a phone that has not finished with them. */
  private readonly holding = new Set<string>();
  /** Inbox reads in progress, by number. */
  private readonly draining = new Map<string, Promise<void>>();
  /** The record of which process had each phone online, and when. */
  readonly links: SandboxLinks;
  private readonly latencyMs: number;
  /** Reads the online phones' inboxes again every `inboxRecheckMs` while any phone is online here. */
  private recheck?: NodeJS.Timeout;

  constructor(
    private readonly storage: Storage,
    private readonly options: Pick<SandboxOptions, 'latencyMs' | 'inboxRecheckMs'>,
    private readonly logger: Logger,
    private readonly clock: Clock = systemClock,
  ) {
    this.latencyMs = options.latencyMs;
    this.links = new SandboxLinks(storage, clock, logger);
    const signals = storage.signals?.();
    if (signals) {
      this.relay = new SandboxRelay(signals, {
        wake: (instanceId, keys) => this.woken(instanceId, keys),
        presence: (to, packet) => {
          const phone = this.online.get(to);
          if (phone) void phone.receive(packet, false);
        },
        announced: (number, status) => this.tellWatchers(number, status),
        localNumbers: () => [...this.online.keys()],
        restored: () => {
          for (const phone of this.online.values()) void this.redrain(phone);
        },
      }, logger);
    }
  }

  /** Unix milliseconds on the server's clock: every time the simulated network and its phones stamp comes from here. */
  now(): number {
    return this.clock.now();
  }

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

  /** Tells every online subscriber of `number`, on every process, that it is now available or unavailable. */
  private announce(number: string, status: 'available' | 'unavailable'): void {
    this.tellWatchers(number, status);
    this.relay?.announce(number, status).catch((err: unknown) => this.relay!.failed(err));
  }

  /** Tells this process's online subscribers of `number`. */
  private tellWatchers(number: string, status: 'available' | 'unavailable'): void {
    for (const subscriber of this.watchers.get(number) ?? []) {
      const phone = this.online.get(subscriber);
      if (phone) setImmediate(() => void phone.receive({ kind: 'presence', from: number, status }, false));
    }
  }

  /**
   * Records the phone's link, marks it online and hands it what waited in its inbox, in order. When
   * `wanted` answers false once the link is recorded (the phone was stopped meanwhile), the link is
   * closed at once and the phone stays offline.
   */
  async attach(phone: SandboxPhone, wanted: () => boolean = () => true): Promise<void> {
    // Listening before the inbox is read: a packet written meanwhile is either read or woken for.
    await this.relay?.start();
    if (!wanted()) return;
    await this.links.opened(phone.number, phone.instanceId);
    if (!wanted()) return this.links.closed(phone.number);
    this.online.set(phone.number, phone);
    this.onlineInstances.set(phone.instanceId, phone);
    this.announce(phone.number, 'available');
    // Only a network that spans processes has wake-ups to lose (a failed hand-over starts the re-reads too).
    if (this.relay) this.startRechecks();
    await this.drain(phone);
  }

  private startRechecks(): void {
    this.recheck ??= setInterval(() => this.recheckInboxes(), this.options.inboxRecheckMs).unref();
  }

  /**
   * A wake-up is a signal, and signals can be lost: the sender's process may lose Redis (or die) right
   * after writing the packet, before its wake-up is published. Every online phone's inbox is therefore
   * read again now and then; a read that fails (storage unreachable) waits for the next round.
   */
  private recheckInboxes(): void {
    if (this.online.size === 0) {
      clearInterval(this.recheck);
      this.recheck = undefined;
      return;
    }
    for (const phone of this.online.values()) {
      if (!this.draining.has(phone.number)) this.drain(phone).catch(() => undefined);
    }
  }

  /**
   * Hands a phone every inbox packet that is neither on its way nor with it already, marked replayed
   * (a previous process, or a failed hand-over, may have handed it before).
   */
  private async drain(phone: SandboxPhone): Promise<void> {
    const drain = (async () => {
      const waiting = await this.storage.state.list<Packet>(inboxOf(phone.instanceId));
      for (const { id: key, value: packet } of waiting) {
        // Written by this process and still on its way (its hand-over delivers it), or already with the phone.
        if (!this.scheduled.has(key) && !this.holding.has(key)) this.handTo(phone, key, packet, true);
      }
    })();
    this.draining.set(phone.number, drain);
    try {
      await drain;
    } finally {
      if (this.draining.get(phone.number) === drain) this.draining.delete(phone.number);
    }
  }

  /**
   * Reads an online phone's inbox again after wake-ups may have been missed (the link to the other
   * processes was down): retried {@link REDRAIN_DELAYS_MS} apart while storage fails, then left to
   * the phone's next connection.
   */
  private async redrain(phone: SandboxPhone): Promise<void> {
    for (let attempt = 0; this.online.get(phone.number) === phone; attempt++) {
      try {
        await this.drain(phone);
        return;
      } catch (err) {
        const delay = REDRAIN_DELAYS_MS[attempt];
        if (delay === undefined) {
          this.logger.error({ err, instance: phone.instanceId }, 'sandbox inbox read failed after the link came back; read again when the phone next comes online');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, delay).unref());
      }
    }
  }

  /** Another process wrote packets to the inbox of a phone online here: each is handed over unless read already. */
  private woken(instanceId: string, keys: readonly string[]): void {
    const phone = this.onlineInstances.get(instanceId);
    if (!phone) return;
    for (const key of keys) {
      if (this.holding.has(key)) continue;
      this.storage.state.get<Packet>(inboxOf(instanceId), key).then((packet) => {
        // Gone: an inbox read handed it over and the phone is done with it.
        if (packet && !this.holding.has(key) && this.onlineInstances.get(instanceId) === phone) this.handTo(phone, key, packet, false);
      }, (err: unknown) => this.logger.error({ err }, 'sandbox inbox read failed; the packet waits for the next inbox read'));
    }
  }

  /** Marks a phone offline; resolves once its link is recorded as closed (a failed write is logged, never thrown). */
  async detach(phone: SandboxPhone): Promise<void> {
    if (this.online.get(phone.number) !== phone) return;
    this.online.delete(phone.number);
    this.onlineInstances.delete(phone.instanceId);
    this.announce(phone.number, 'unavailable');
    await this.links.closed(phone.number);
  }

  /** Whether a phone is online, on this process or another of the network. */
  isOnline(number: string): boolean {
    return this.online.has(number) || (this.relay?.isOnline(number) ?? false);
  }

  /** Numbers a message to a chat JID reaches: the user of a user JID, every member of a group; nobody for other JIDs. */
  async recipientsOf(jid: string): Promise<string[]> {
    if (jid.endsWith(USER_SUFFIX)) return [jidUser(jid)];
    if (isGroupJid(jid)) return groupMemberNumbers(this.storage, jid);
    return [];
  }

  /**
   * Carries a packet to a number: writes it to the phone's inbox, then hands it over after the
   * simulated latency if the phone is online (an offline phone gets it when it comes online).
   * Resolves once the packet is in storage; answers false for a number no sandbox instance holds (an
   * unreachable phone). Presences are not kept: they reach an online phone or nobody.
   */
  async send(to: string, packet: Packet): Promise<boolean> {
    return (await this.sendToAll([to], packet)) > 0;
  }

  /**
   * {@link send} to several numbers: every inbox is written before any hand-over, so no answer (a
   * delivery receipt) can come back before the packet reached all of them. Answers how many numbers
   * were reachable.
   */
  async sendToAll(numbers: readonly string[], packet: Packet): Promise<number> {
    if (packet.kind === 'presence') return this.sendPresence(numbers, packet);
    const written: { to: string; instanceId: string; key: string }[] = [];
    for (const to of numbers) {
      const instanceId = this.online.get(to)?.instanceId ?? (await this.instanceOf(to));
      if (!instanceId) continue;
      const key = newUlid(Date.now());
      // Before the write: an inbox read that sees the document leaves it to this hand-over.
      this.scheduled.add(key);
      try {
        await this.storage.state.put(inboxOf(instanceId), key, packet);
      } catch (err) {
        this.scheduled.delete(key);
        throw err;
      }
      written.push({ to, instanceId, key });
    }
    if (!written.length) return 0;
    const handOver = () => {
      const elsewhere = new Map<string, string[]>();
      for (const { to, instanceId, key } of written) {
        this.scheduled.delete(key);
        const phone = this.online.get(to);
        if (phone?.instanceId === instanceId) this.handTo(phone, key, packet, false);
        // Online on another process, or offline (it finds the packet in its inbox when it comes online).
        else if (this.relay) elsewhere.set(instanceId, [...(elsewhere.get(instanceId) ?? []), key]);
      }
      for (const [instanceId, keys] of elsewhere) this.relay!.wake(instanceId, keys).catch((err: unknown) => this.relay!.failed(err));
    };
    if (this.latencyMs > 0) setTimeout(handOver, this.latencyMs).unref();
    else setImmediate(handOver);
    return written.length;
  }

  /** Presences reach online phones, here or on another process, and are never stored. */
  private sendPresence(numbers: readonly string[], packet: PresencePacket): number {
    let reached = 0;
    for (const to of numbers) {
      const phone = this.online.get(to);
      if (phone) setImmediate(() => void phone.receive(packet, false));
      else if (this.relay?.isOnline(to)) this.relay.presence(to, packet).catch((err: unknown) => this.relay!.failed(err));
      else continue;
      reached++;
    }
    return reached;
  }

  /**
   * Answers a packet that phone `to` sent, such as the delivery receipt of its message: handed
   * straight to `to` after the simulated latency when it is online, resolving once `to` has stored
   * what it caused; written to its inbox like {@link send} when it is offline. Only for answers to a
   * packet that stays in the answering phone's inbox until this resolves: a crash before then
   * replays that packet, whose answer goes again marked `replayed`, so the answer needs no inbox
   * document of its own (two writes fewer per message).
   */
  async reply(to: string, packet: Packet, replayed: boolean): Promise<void> {
    if (this.latencyMs > 0 && this.online.has(to)) await new Promise((resolve) => setTimeout(resolve, this.latencyMs));
    const phone = this.online.get(to);
    if (phone) {
      try {
        return await phone.receive(packet, replayed);
      } catch (err) {
        // Stopped while handling it: the answer waits in its inbox for the phone's next connection, wherever that is.
        if (!(err instanceof PhoneWentOfflineError)) throw err;
      }
    }
    await this.send(to, packet);
  }

  /** Hands an inbox packet to a phone, and deletes it once the phone has stored what it caused. */
  private handTo(phone: SandboxPhone, key: string, packet: Packet, replayed: boolean): void {
    this.holding.add(key);
    phone.receive(packet, replayed).then(
      async () => {
        await this.storage.state.delete(inboxOf(phone.instanceId), key);
        // An inbox read that listed the document before the delete must still find it held.
        await this.draining.get(phone.number);
        this.holding.delete(key);
      },
      (err: unknown) => {
        // Left in the inbox: the phone gets it again when it next comes online, or (a failure such as
        // storage being unavailable while it is online) at the inbox re-reads, every inboxRecheckMs.
        this.holding.delete(key);
        if (err instanceof PhoneWentOfflineError) this.logger.info({ instance: phone.instanceId, kind: packet.kind }, 'sandbox packet kept for the phone\'s next connection');
        else {
          this.logger.error({ err, kind: packet.kind }, 'sandbox delivery failed; handed over again at the next inbox re-read');
          this.startRechecks();
        }
      },
    ).catch((err: unknown) => {
      this.holding.delete(key);
      this.logger.error({ err }, 'sandbox inbox clean-up failed');
      this.startRechecks();
    });
  }

  /**
   * Runs `fn` after every earlier task of the same key: read-modify-write of shared sandbox state
   * (groups, catalogs) without lost updates within this process. Processes of a network that spans
   * several do not lock each other: two changes to one group made at the same moment on two
   * processes may race (the later write wins).
   */
  serialize<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.locks.run(`task:${key}`, fn);
  }
}
