import type { BinaryNode } from '@whiskeysockets/baileys';
import { unixNow } from '../network/network.js';
import type { Network } from '../network/network.js';
import type { Account } from '../network/model.js';

/** Retry receipts a phone sends for one message from one device before it gives up (WhatsApp's apps stop after a few). */
export const MAX_PHONE_RETRIES = 3;
/** Messages whose retry count a phone remembers; the oldest are forgotten first. */
const MAX_TRACKED = 1000;

/**
 * A phone that cannot decrypt a companion's message asks for it again, as WhatsApp's apps do: a
 * `<receipt type="retry">` to the sending device, from the phone's user JID, with `<retry count id t v>` and
 * its `<registration>` id. Baileys answers it (Socket/messages-recv.js sendMessagesAgain) by fetching a fresh
 * key bundle for the phone (`assertSessions(…, true)`) and relaying the message again under the same id —
 * the message read back from its retry cache or the app's `getMessage`.
 */
export class PhoneRetries {
  private readonly counts = new Map<string, number>();

  constructor(private readonly network: Network) {}

  /**
   * The phone of `phoneAccount` could not decrypt message `id` from `fromDevice`: ask that device again, within
   * bounds. `from` names the asker: its user JID in a 1:1 chat; in a group the group, with the phone as
   * `participant` as the group names it (whatsmeow retry.go sendRetryReceipt copies the message's `from` and
   * `participant`; Baileys Socket/messages-recv.js handleReceipt reads a group's retry from `participant`).
   */
  ask(phoneAccount: Account, fromDevice: string, id: string, from: Record<string, string> = { from: `${phoneAccount.number}@s.whatsapp.net` }): void {
    const device = this.network.companionOf(fromDevice);
    if (!device) return;
    const key = `${phoneAccount.number}|${fromDevice}|${id}`;
    const count = (this.counts.get(key) ?? 0) + 1;
    if (count > MAX_PHONE_RETRIES) return;
    this.counts.delete(key);
    this.counts.set(key, count);
    if (this.counts.size > MAX_TRACKED) this.counts.delete(this.counts.keys().next().value!);
    const t = unixNow();
    const registration = Buffer.alloc(4);
    registration.writeUInt32BE(phoneAccount.phone.keys.registrationId);
    const content: BinaryNode[] = [
      { tag: 'retry', attrs: { count: String(count), id, t, v: '1' } },
      { tag: 'registration', attrs: {}, content: registration },
    ];
    this.network.deliver(device, { tag: 'receipt', attrs: { ...from, id, type: 'retry', t }, content });
  }
}
