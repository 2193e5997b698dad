import type { BinaryNode } from '@whiskeysockets/baileys';
import { BoundedCache } from '../util/bounded-cache.js';

/** Sends remembered at once while their ack is awaited, and ids already reported `sent`. */
const REMEMBERED = 5_000;

/**
 * The server's acks of the instance's own sends: WhatsApp answers every `<message>` a client relays
 * with `<ack class="message" id from t>` (an `error` attribute when it refused it; whatsmeow
 * `handleAck`/`sendNodeAndGetData`), which is the single grey tick: the server has the message.
 * Baileys rc14 surfaces only the refusals (Socket/messages-recv.js `handleBadAck`), and reports
 * `SERVER_ACK` only for `sender` receipts, which a sending device does not get, so without this a
 * WhatsApp send never reported `sent`. Only ids the messaging capability announced with
 * {@link expect} count: the socket also relays protocol messages (app-state keys, retries) that are
 * no send of the API's. Each send is reported `sent` once, by whichever comes first.
 */
export class ServerAcks {
  private readonly awaited = new BoundedCache<true>({ max: REMEMBERED });
  private readonly reported = new BoundedCache<true>({ max: REMEMBERED });

  /** A send with this id is about to be relayed. */
  expect(id: string): void {
    this.awaited.set(id, true);
  }

  /** The id a stanza acks when it is the server's acceptance of an awaited send (once), else undefined. */
  accepted(node: BinaryNode): string | undefined {
    const { id, error } = node.attrs;
    if (!id || error !== undefined || !this.awaited.has(id)) return undefined;
    this.awaited.del(id);
    return this.firstSent(id) ? id : undefined;
  }

  /** True the first time `id` is reported `sent` (by an ack or a Baileys update), false afterwards. */
  firstSent(id: string): boolean {
    if (this.reported.has(id)) return false;
    this.reported.set(id, true);
    return true;
  }
}
