import { randomUUID } from 'node:crypto';
import type { Logger, StorageSignals } from '@parley/core';
import type { PresencePacket } from './sandbox-packets.js';

/** The one topic every process of a sandbox network listens to. */
const TOPIC = 'sandbox:network';

/** What one process of the network tells the others. */
type RelayMessage =
  /** Packets were written to the inbox of `instanceId` (by key): the process holding that phone hands them over. */
  | { kind: 'wake'; from: string; instanceId: string; keys: string[] }
  /** A chat presence for the phone of number `to` (never stored: it reaches an online phone or nobody). */
  | { kind: 'presence'; from: string; to: string; packet: PresencePacket }
  /** A phone came online or went offline on the sending process. */
  | { kind: 'announce'; from: string; number: string; status: 'available' | 'unavailable' }
  /** A process joined (or rejoined after a lost link): the others answer with the phones they hold. */
  | { kind: 'hello'; from: string }
  | { kind: 'online'; from: string; numbers: string[] };

/** What the network does with what other processes tell it. */
export interface RelayHandlers {
  wake(instanceId: string, keys: readonly string[]): void;
  presence(to: string, packet: PresencePacket): void;
  /** A phone of another process came online or went offline. */
  announced(number: string, status: 'available' | 'unavailable'): void;
  /** Numbers of the phones online on this process (answered to a joining process). */
  localNumbers(): string[];
  /** The link was lost and is back: wake-ups may have been missed, so every online phone re-reads its inbox. */
  restored(): void;
}

/**
 * The sandbox network across processes that share one store (several Parley nodes on one Redis),
 * over the store's {@link StorageSignals}. Packets themselves travel through storage (the receiving
 * phone's inbox, written before the send is answered); the relay only tells the process holding the
 * phone that something is waiting, and carries what is never stored: chat presences and who is
 * online. A lost signal therefore loses nothing: the inbox is read again when the link comes back
 * and whenever the phone comes online.
 */
export class SandboxRelay {
  /** This process's id in the network. */
  readonly id = randomUUID();
  /** Numbers online on other processes, with the process holding each. */
  private readonly remote = new Map<string, string>();
  private started?: Promise<void>;

  constructor(private readonly signals: StorageSignals, private readonly handlers: RelayHandlers, private readonly logger: Logger) {}

  /** Subscribes (once; again after a failure) and asks the others which phones they hold. */
  start(): Promise<void> {
    this.started ??= (async () => {
      await this.signals.subscribe(TOPIC, (text) => this.heard(text));
      this.signals.onReconnect(() => {
        this.handlers.restored();
        this.post({ kind: 'hello', from: this.id }).catch((err: unknown) => this.failed(err));
      });
      await this.post({ kind: 'hello', from: this.id });
    })().catch((err: unknown) => {
      this.started = undefined;
      throw err;
    });
    return this.started;
  }

  /** Whether a phone of another process is online. */
  isOnline(number: string): boolean {
    return this.remote.has(number);
  }

  /** Tells the other processes that packets wait in an instance's inbox. */
  wake(instanceId: string, keys: string[]): Promise<void> {
    return this.post({ kind: 'wake', from: this.id, instanceId, keys });
  }

  presence(to: string, packet: PresencePacket): Promise<void> {
    return this.post({ kind: 'presence', from: this.id, to, packet });
  }

  announce(number: string, status: 'available' | 'unavailable'): Promise<void> {
    return this.post({ kind: 'announce', from: this.id, number, status });
  }

  private async post(message: RelayMessage): Promise<void> {
    await this.signals.publish(TOPIC, JSON.stringify(message));
  }

  private heard(text: string): void {
    let message: RelayMessage;
    try {
      message = JSON.parse(text) as RelayMessage;
    } catch {
      this.logger.warn('sandbox relay: unreadable message dropped');
      return;
    }
    if (message.from === this.id) return;
    switch (message.kind) {
      case 'wake': return this.handlers.wake(message.instanceId, message.keys);
      case 'presence': return this.handlers.presence(message.to, message.packet);
      case 'announce':
        if (message.status === 'available') this.remote.set(message.number, message.from);
        else if (this.remote.get(message.number) === message.from) this.remote.delete(message.number);
        return this.handlers.announced(message.number, message.status);
      case 'hello': {
        for (const [number, holder] of this.remote) if (holder === message.from) this.remote.delete(number);
        const numbers = this.handlers.localNumbers();
        if (numbers.length) void this.post({ kind: 'online', from: this.id, numbers }).catch((err: unknown) => this.failed(err));
        return;
      }
      case 'online':
        for (const number of message.numbers) this.remote.set(number, message.from);
        return;
    }
  }

  /** A publish that failed (the store is unreachable): logged; the inboxes keep what matters. */
  failed(err: unknown): void {
    this.logger.warn({ err }, 'sandbox relay: signal not sent');
  }
}
