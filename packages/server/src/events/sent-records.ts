import { MESSAGE_STATUS_RANK, type ChannelEvent, type ChannelName, type MediaBlob, type MessageRecord } from '@parley/core';

/** The record of a message its channel took, as the send path hands it to the store ({@link SentEvent}). */
export interface SentRecord {
  /** The record as stored and answered: the channel's, with its `provider`. */
  readonly record: MessageRecord;
  /** The media sent, kept as the copy GET media serves (spec 4.4). */
  readonly media?: MediaBlob;
}

/**
 * The bus's own event carrying a {@link SentRecord} to the store, in the instance's event order (so the
 * statuses a channel emitted before its send returned apply after the record). Not a channel event: no
 * subscriber but the store's `handleSent` sees it — not the webhooks, sinks or event log, nor the
 * bus's taps and watchers.
 */
export interface SentEvent {
  readonly type: 'sent';
  readonly id: string;
  readonly instance: string;
  readonly provider: ChannelName;
  readonly sent: SentRecord;
}

/** What the event bus carries: channel events and the send path's {@link SentEvent}s. */
export type BusEvent = ChannelEvent | SentEvent;

/**
 * The records of an instance's own messages (`fromMe`) that the store projected from `message` events
 * lately, by instance and message id: a channel that reports its own sends (the sandbox does) emits
 * its copy of a send before `send` answers, so by the time the send's {@link SentRecord} reaches the
 * store that copy is stored, and the record need not be read or written again. Bounded: an entry is
 * taken by the record of its send, or dropped oldest first; a record whose copy is not remembered is
 * stored the usual way (read, compared, written when it changes something).
 */
export class OwnCopies {
  private readonly records = new Map<string, MessageRecord>();

  constructor(private readonly max = 1_024) {}

  /** The projector stored `record`, an own message of `instance`, from a `message` event. */
  remember(instance: string, record: MessageRecord): void {
    const key = `${instance}/${record.key.id}`;
    this.records.delete(key);
    this.records.set(key, record);
    if (this.records.size > this.max) this.records.delete(this.records.keys().next().value!);
  }

  /**
   * Takes the copy of `sent`'s message remembered for `instance` and answers whether it is stored
   * already as `sent` would store it: every field of `sent` the same, and a status at least as far on.
   */
  covers(instance: string, sent: MessageRecord): boolean {
    const key = `${instance}/${sent.key.id}`;
    const copy = this.records.get(key);
    if (!copy) return false;
    this.records.delete(key);
    return MESSAGE_STATUS_RANK[copy.status] >= MESSAGE_STATUS_RANK[sent.status] && overlays(copy, { ...sent, status: copy.status });
  }
}

/**
 * Whether writing `next` over `current` would store what is stored already: every field of `next`
 * serializes as the same field of `current` (what `{ ...current, ...next }` serialized would tell,
 * without serializing the whole record twice). An undefined field of `next` counts as absent.
 */
export function overlays(current: MessageRecord, next: MessageRecord): boolean {
  const stored = current as unknown as Record<string, unknown>;
  for (const [field, value] of Object.entries(next)) {
    if (value === undefined) {
      if (stored[field] !== undefined) return false;
    } else if (value !== stored[field] && JSON.stringify(value) !== JSON.stringify(stored[field])) {
      return false;
    }
  }
  return true;
}
