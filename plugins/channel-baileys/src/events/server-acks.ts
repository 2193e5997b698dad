import type { BinaryNode, MessageRelayOptions, proto } from '@whiskeysockets/baileys';
import { BoundedCache } from '../util/bounded-cache.js';

/** A send as the socket relayed it: enough to relay it again, under the same id, on the next socket. */
export interface Relay {
  jid: string;
  message: proto.IMessage;
  options: Pick<MessageRelayOptions, 'additionalAttributes' | 'additionalNodes'>;
}

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
  /** Relayed sends not acked yet, oldest first (at most REMEMBERED). */
  private readonly unacked = new Map<string, Relay>();

  /** A send with this id is about to be relayed. */
  expect(id: string): void {
    this.awaited.set(id, true);
  }

  /**
   * The socket relayed the awaited send `id` (its `sendMessage`/`relayMessage` resolved): the frame was
   * written, which says nothing about the server having it. Kept until the server acks it.
   */
  relayed(id: string, relay: Relay): void {
    if (!this.awaited.has(id)) return;
    this.unacked.set(id, relay);
    while (this.unacked.size > REMEMBERED) this.unacked.delete(this.unacked.keys().next().value as string);
  }

  /** The id a stanza acks when it is the server's acceptance of an awaited send (once), else undefined. */
  accepted(node: BinaryNode): string | undefined {
    const { id, error } = node.attrs;
    if (!id || !this.awaited.has(id)) return undefined;
    this.awaited.del(id);
    // Refused or accepted, the server has it: it is never relayed again.
    this.unacked.delete(id);
    if (error !== undefined) return undefined;
    return this.firstSent(id) ? id : undefined;
  }

  /**
   * The relayed sends the server never acked, each handed out once: on a link that drops packets without
   * a reset (a blackhole), a socket writes sends into the void until its keep-alive gives up, and
   * nothing of them reached WhatsApp. Relayed again under the same id once the next socket opened, they
   * arrive once (a receiving device takes a message id once, should the server have had it after all).
   */
  takeUnacked(): Array<[string, Relay]> {
    const all = [...this.unacked];
    this.unacked.clear();
    return all;
  }

  /** True the first time `id` is reported `sent` (by an ack or a Baileys update), false afterwards. */
  firstSent(id: string): boolean {
    if (this.reported.has(id)) return false;
    this.reported.set(id, true);
    return true;
  }
}
