import { NotFoundError, UpstreamError } from '@parley/core';
import { BoundedCache } from '../util/bounded-cache.js';
import { upstream } from '../util/errors.js';
import { isPnJid } from '../util/jids.js';
import type { BaileysSocket } from '../socket.js';

/** How long a number's answer is kept: accounts rarely move, and each lookup is a query to WhatsApp. */
const KNOWN_MS = 24 * 3600_000;
/** A number not on WhatsApp is asked about again sooner: its owner may register. */
const UNKNOWN_MS = 3600_000;
const REMEMBERED = 10_000;

/**
 * The WhatsApp account a phone-number JID reaches, as WhatsApp's usync answers it
 * (`onWhatsApp`), cached. WhatsApp files some numbers under another form than the one dialled —
 * Brazilian mobiles registered before the ninth digit answer as `55 DD 8-digit` while people dial
 * `55 DD 9 8-digit` — and a message to the other form goes to a chat nobody reads; so a send goes to
 * the JID WhatsApp answers, and a number not on WhatsApp is refused (404 `not_on_whatsapp`) before
 * anything is sent.
 */
export class RecipientResolver {
  private readonly answers: BoundedCache<{ jid: string | null; until: number }>;

  constructor(private readonly now: () => number) {
    this.answers = new BoundedCache({ max: REMEMBERED, now });
  }

  /** The JID to send to: groups, LIDs, broadcasts and newsletters as they are; a person's number as WhatsApp answers it. */
  async resolve(socket: BaileysSocket, jid: string): Promise<string> {
    if (!isPnJid(jid)) return jid;
    const cached = this.answers.get(jid);
    const answer = cached && cached.until > this.now() ? cached.jid : await this.lookup(socket, jid);
    if (answer === null) throw new NotFoundError(`WhatsApp account of ${jid.split('@')[0]}`, 'not_on_whatsapp');
    return answer;
  }

  private async lookup(socket: BaileysSocket, jid: string): Promise<string | null> {
    const results = await upstream('the number lookup', () => socket.onWhatsApp(jid));
    // No answer is not "not on WhatsApp": Baileys rc14 answers undefined when the usync query timed out
    // (Socket/socket.js waitForMessage turns its time-out into undefined, as on a link that drops packets)
    // or came back as an error. Nothing is cached, and the send fails as retryable (a queued one is tried again).
    if (results === undefined) {
      throw new UpstreamError('WhatsApp did not answer the number lookup (no answer in time); nothing was sent', { retryable: true, upstreamCode: 408 });
    }
    const [result] = results;
    const answer = result?.exists && typeof result.jid === 'string' ? result.jid : null;
    this.answers.set(jid, { jid: answer, until: this.now() + (answer === null ? UNKNOWN_MS : KNOWN_MS) });
    return answer;
  }
}
