import type { BinaryNode } from '@whiskeysockets/baileys';
import type { Network } from '../network/network.js';
import type { Account, CompanionDevice } from '../network/model.js';

/** A presence, chat state or call stanza as one device of an account received it. */
export interface SignalRecord {
  /** The receiving device: `phone`, or a companion's JID (`number:id@s.whatsapp.net`). */
  device: string;
  kind: 'presence' | 'chatstate' | 'call';
  /** The account it is about or from (`number@s.whatsapp.net`); the group for a group's presence. */
  from: string;
  /** `available`/`unavailable`; `composing`/`recording`/`paused`; `offer`/`accept`/`reject`/`terminate`. */
  state: string;
  /** Last seen (Unix seconds) of an unavailable presence, or `deny` when the account's privacy hides it. */
  last?: string;
  callId?: string;
  /** The group (`id@g.us`) a chat state was typed in, or whose presence (`count`) a subscription got. */
  group?: string;
  /** In a group: the sender as the group named it (its LID, `lid@lid`, in a LID-addressed group). */
  participant?: string;
  /** A group's presence: how many of its members are online. */
  count?: number;
  at: number;
}

/** Records kept per account; the oldest go first. */
export const MAX_SIGNALS = 1000;

/**
 * What each device received of presences, chat states and calls, for the control API. Presences and chat
 * states reach online companions only (the server does not keep them for later); calls are kept for an
 * offline companion's next login, as WhatsApp delivers an offer to a device that comes online while it rings.
 */
export class SignalLog {
  private readonly log = new Map<Account, SignalRecord[]>();

  constructor(private readonly network: Network) {}

  /** Sends `node` to a companion of `account` (or keeps it, with `keep`) and records it; false when it did not go. */
  toCompanion(account: Account, device: CompanionDevice, node: BinaryNode, record: Omit<SignalRecord, 'device' | 'at'>, keep = false): boolean {
    if (!keep && !device.connection?.isOpen) return false;
    this.network.deliver(device, node);
    this.add(account, { ...record, device: device.jid, at: Date.now() });
    return true;
  }

  /** Records what the phone of `account` received. */
  toPhone(account: Account, record: Omit<SignalRecord, 'device' | 'at'>): void {
    this.add(account, { ...record, device: 'phone', at: Date.now() });
  }

  of(account: Account): SignalRecord[] {
    return [...(this.log.get(account) ?? [])];
  }

  private add(account: Account, record: SignalRecord): void {
    const list = this.log.get(account) ?? [];
    list.push(record);
    if (list.length > MAX_SIGNALS) list.shift();
    this.log.set(account, list);
  }
}
