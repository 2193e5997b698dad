import type { InboundMessage } from '@parley/core';

/**
 * How long a message that did not decrypt waits for the sender's resend before it is reported as
 * unsupported, by default (the plugin option `undecryptableGraceMs`). Baileys answers a failed
 * decryption with a retry receipt (Socket/messages-recv.js, `sendRetryRequest`), and the sender's
 * client resends within seconds under the same message id.
 */
export const CIPHERTEXT_GRACE_MS = 30_000;
/** Messages held at once; past it the oldest is reported at once (a flood of undecryptable messages holds no unbounded memory). */
const MAX_HELD = 1_000;

/**
 * Messages that did not decrypt (`unsupported` with type `ciphertext`), held for `graceMs`
 * ({@link CIPHERTEXT_GRACE_MS} by default): a resend that decrypts arrives as the message itself and
 * cancels the hold, so one message is reported once, either as what it is or as unsupported.
 */
export class UndecryptedMessages {
  private readonly held = new Map<string, { message: InboundMessage; timer: ReturnType<typeof setTimeout> }>();

  constructor(private readonly report: (message: InboundMessage) => void, private readonly graceMs = CIPHERTEXT_GRACE_MS) {}

  /** Holds a message that did not decrypt (a repeat of one already held is dropped). */
  hold(message: InboundMessage): void {
    const key = keyOf(message);
    if (this.held.has(key)) return;
    if (this.held.size >= MAX_HELD) this.release(this.held.keys().next().value!);
    const timer = setTimeout(() => this.release(key), this.graceMs);
    timer.unref?.();
    this.held.set(key, { message, timer });
  }

  /** A message that decrypted: the stub held for it is never reported. */
  decrypted(message: InboundMessage): void {
    const key = keyOf(message);
    const entry = this.held.get(key);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.held.delete(key);
  }

  /** Reports every message still held: the adapter stops, so no resend of them will be decrypted. */
  flush(): void {
    for (const key of [...this.held.keys()]) this.release(key);
  }

  private release(key: string): void {
    const entry = this.held.get(key);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.held.delete(key);
    this.report(entry.message);
  }
}

function keyOf(message: InboundMessage): string {
  return `${message.chatJid}\u0000${message.id}`;
}
