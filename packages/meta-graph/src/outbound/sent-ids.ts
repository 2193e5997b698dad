/** Ids remembered at once; the oldest goes first. */
const REMEMBERED = 10_000;

/**
 * The message ids Meta answered to this adapter's sends, remembered for a while: Meta echoes every
 * message the account sends (`is_echo`), those sent through Parley's API included, and the echo can
 * arrive before the send's record is stored. An echo of one of these is the send's `sent` status,
 * not a message of its own (docs: own messages sent through the API are never `message` events, on
 * any channel).
 */
export class SentIds {
  private readonly ids = new Set<string>();

  add(id: string): void {
    this.ids.delete(id);
    this.ids.add(id);
    if (this.ids.size > REMEMBERED) this.ids.delete(this.ids.values().next().value!);
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }
}
