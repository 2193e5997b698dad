import type { MessageRecord } from '../domain/message.js';

/**
 * The server's send path as plugins use it ({@link Tokens.Sends}): the very path of
 * `POST /{key}/message/text` — the recipient normalized by the main channel's addressing, the outbound
 * queue with its pacing, the record stored and the events published.
 */
export interface HostSends {
  /**
   * Sends a text from an instance (by id) to `to`, an address of its main channel. Answers the
   * `PENDING` record, as the REST send does. Rejects with the REST send's errors: `ValidationError`
   * for a bad `to` or text, `InstanceNotFound`-style 404 errors for an unknown instance, 409 when the
   * instance is not connected and the queue is off.
   */
  text(instanceId: string, to: string, text: string): Promise<MessageRecord>;
}
