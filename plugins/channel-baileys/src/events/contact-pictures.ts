import type { BaileysSocket } from '../socket.js';

/** Picture fetches in flight at once; a notification past that reports the picture unknown (null) without asking. */
const MAX_PENDING = 200;

/**
 * The URL of a contact's new profile picture. WhatsApp announces a new picture with `<notification
 * type="picture"><set/></notification>`, which Baileys rc14 turns into `contacts.update` with `imgUrl: 'changed'`
 * and no URL (Socket/messages-recv.js). The URL is asked for (`profilePictureUrl`, the `w:profile:picture` iq)
 * outside the event queue, so a slow answer holds back no other event, and reported as a contact change: the URL,
 * or `null` (unknown: the picture hidden by the contact's privacy, gone again, the query failed) so the previous
 * URL is never kept for a picture that changed. A later notification for the same contact (another change, a
 * removal) supersedes a fetch still in flight: only the latest is reported.
 */
export class ContactPictures {
  private readonly pending = new Map<string, symbol>();

  /**
   * @param enqueue runs work in the router's event queue, in order with the events handled meanwhile
   * @param report emits the contact change (inside the queue)
   */
  constructor(
    private readonly enqueue: (work: () => Promise<void>) => void,
    private readonly report: (jid: string, imgUrl: string | null) => void,
  ) {}

  /** `jid` has a new picture: reports its URL (or null) once known, unless superseded by then. */
  changed(socket: BaileysSocket, jid: string): void {
    const ticket = Symbol(jid);
    this.pending.delete(jid);
    const full = this.pending.size >= MAX_PENDING;
    this.pending.set(jid, ticket);
    const url = full ? Promise.resolve(undefined) : socket.profilePictureUrl(jid, 'image').catch(() => undefined);
    void url.then((found) => this.enqueue(async () => {
      // Checked in the queue: a removal handled before this turn came wins.
      if (this.pending.get(jid) !== ticket) return;
      this.pending.delete(jid);
      this.report(jid, found || null);
    }));
  }

  /** `jid`'s picture changed again or was removed (reported by the caller): a fetch in flight is not reported. */
  superseded(jid: string): void {
    this.pending.delete(jid);
  }

  /** The router stops: fetches in flight are not reported. */
  clear(): void {
    this.pending.clear();
  }
}
