import type { MessageRecord, MediaBlob } from '../domain/message.js';
import type { CallLinkType, PresenceRequest, SendRequest } from '../domain/outgoing.js';

/**
 * Sending (spec 4.2, 4.3) and media download (4.4). The server validates the body, resolves media and
 * quoted messages and stores the returned record; the adapter maps the request onto its protocol.
 */
export interface MessagingCapability {
  /**
   * Sends one message. Answers its record with `status: 'PENDING'`; later delivery statuses arrive as
   * `message.status` events. Throws ConflictError when not connected, CapabilityNotSupportedError when
   * this channel cannot send `request.content.type` (see {@link MessagingCapability.supports}).
   */
  send(request: SendRequest): Promise<MessageRecord>;
  /** True when `send` handles this content type. Unsupported types answer 422 before any I/O. */
  supports(type: SendRequest['content']['type']): boolean;
  /** Sends a chat presence (typing, recording, …). */
  sendPresence(request: PresenceRequest): Promise<void>;
  /** Creates a call link without sending it (spec 4.2 `/create-call-link`). Absent where unsupported. */
  createCallLink?(type: CallLinkType): Promise<string>;
  /**
   * Downloads the media of a received message that the server has not stored. Answers null when the
   * message has no media. Bounded by the host's received-media limit (`maxDownloadBytes` of the
   * host settings' `media`): over it, MediaTooLargeError (413 `media_too_large`) — before any
   * download when the message declares a larger size, else as soon as more bytes than the limit
   * arrive (the download is abandoned and its connection closed; nothing larger is held in memory).
   */
  downloadMedia?(record: MessageRecord): Promise<MediaBlob | null>;
  /**
   * What the channel carries of a text's or caption's extras (`mentions`, `preview` of
   * {@link OutgoingContent}). Absent members are false: the server answers 422 for `mentions` a
   * channel cannot carry, and does not fetch previews for a channel that shows none (the social
   * apps preview links in a text themselves).
   */
  readonly extras?: { mentions?: boolean; linkPreview?: boolean };
  /**
   * The address a send's `to` reaches on the network, asked before the send is accepted (and so
   * before it is queued): a channel whose network files accounts under another form than the one
   * given answers that form (WhatsApp: the JID its number lookup answers); a recipient the network
   * does not know is refused here (NotFoundError, 404), so nothing is queued for it. Absent where a
   * `to` is used as it is.
   */
  resolveRecipient?(to: string): Promise<string>;
  /**
   * Reports again what the channel reports of a send it took (its own copy as a `message` event, its
   * `sent` status), each only when the instance's event log does not hold it: called by the server for
   * a send whose record is stored while its queue entry is not completed — a process died after the
   * channel took the message and before the send's events were queued for their webhooks (their events
   * are logged in that same write). `record` is the stored record. Resolves once the events are
   * emitted (the server waits for them to be processed before completing the entry). Absent where the
   * channel reports nothing of its own sends, or cannot tell what it reported.
   */
  resumeSent?(record: MessageRecord): Promise<void>;
}
