import { getBinaryNodeChild } from '@whiskeysockets/baileys';
import type { BinaryNode, proto } from '@whiskeysockets/baileys';
import type { Network } from '../network/network.js';
import type { Account, CompanionDevice } from '../network/model.js';
import { MAX_RESENDABLE, MAX_RETRIES, type Messaging, type SentMessage } from './messaging.js';

/** A phone's group message, kept to resend it to a companion that asks. */
export interface GroupResendable {
  from: Account;
  group: string;
  /** The author's device as the group names it (its LID device in a LID-addressed group): its sender key's name. */
  authorJid: string;
  message: proto.IMessage;
  record: SentMessage;
}

/** Sends a resent copy (`enc`) of a phone's group message to one companion, as the group names the author. */
export type CompanionResend = (device: CompanionDevice, original: GroupResendable, enc: BinaryNode) => void;

/**
 * A companion that cannot decrypt a phone's group message answers `<receipt type="retry" to="group"
 * participant="author">` (Baileys Socket/messages-recv.js sendRetryRequest). The phone resends it to that
 * device only, 1:1 (`<enc type="pkmsg|msg" count=N>`, no `skmsg`), the message with its current sender-key
 * distribution inside (`senderKeyDistributionMessage`, wrapped as `deviceSentMessage` for its own companions),
 * over a session from the receipt's key bundle or the one it has — as whatsmeow's retry.go handleRetryReceipt
 * does for groups; at most MAX_RETRIES times per device. The other way (a phone that cannot decrypt a
 * companion's `skmsg` asks it) is PhoneRetries' with the group as `from` (group-messages.ts).
 */
export class GroupRetries {
  private readonly resendable = new Map<string, GroupResendable>();

  constructor(private readonly network: Network, private readonly messaging: Messaging, private readonly resend: CompanionResend) {}

  /** Keeps a phone's group message `id` to resend it; the oldest are forgotten first. */
  remember(id: string, original: GroupResendable): void {
    this.resendable.set(id, original);
    while (this.resendable.size > MAX_RESENDABLE) this.resendable.delete(this.resendable.keys().next().value!);
  }

  /** A companion's retry receipt for a group message: the author's phone resends it to that device. */
  async answer(device: CompanionDevice, node: BinaryNode): Promise<void> {
    const original = this.resendable.get(node.attrs.id ?? '');
    if (!original || node.attrs.to !== original.group || this.network.accountOf(node.attrs.participant ?? '') !== original.from) return;
    const retries = original.record.retries ?? (original.record.retries = []);
    if (retries.filter((r) => r.from === device.jid).length >= MAX_RETRIES) return;
    const count = Number(getBinaryNodeChild(node, 'retry')?.attrs.count ?? 1) || 1;
    retries.push({ from: device.jid, count, at: Date.now() });
    const { from, group, authorJid } = original;
    await this.messaging.retrySession(from, device.jid, node);
    const distribution = await from.phone.distribution(group, authorJid);
    const message: proto.IMessage = { ...original.message, senderKeyDistributionMessage: { groupId: group, axolotlSenderKeyDistributionMessage: distribution } };
    const own = this.network.accountOf(device.jid) === from;
    const { type, ciphertext } = await from.phone.encrypt(device.jid, own ? { deviceSentMessage: { destinationJid: group, message } } : message);
    this.resend(device, original, { tag: 'enc', attrs: { v: '2', type, count: String(count) }, content: ciphertext });
  }
}
