import { createHmac } from 'node:crypto';
import type { ChannelEvent, ChannelEventType, WebhookFormat, WebhookRenderContext } from '@parley/core';

/** Body of one `uppercase` webhook delivery. */
export interface UppercasePayload {
  object: string;
  event: ChannelEventType;
  /** Public instance id (never the secret key). */
  instance: string;
  provider: string;
  eventId: string;
  /** Unix milliseconds the server received the event. */
  receivedAt: number;
  /** Text messages only: the sender, the chat and the text in upper case. */
  message?: { id: string; from: string; chat: string; fromMe: boolean; text: string };
}

/**
 * A webhook format that forwards the chosen event types and turns text messages into upper case.
 * It shows the whole contract: a pure `render`, `null` for what it does not carry, and an optional
 * signature header computed over the exact body bytes.
 */
export class UppercaseFormat implements WebhookFormat {
  readonly name = 'uppercase';

  constructor(
    private readonly events: ReadonlySet<ChannelEventType>,
    private readonly signatureHeader: string,
  ) {}

  render(event: ChannelEvent, context: WebhookRenderContext): UppercasePayload | null {
    if (!this.events.has(event.type)) return null;
    const payload: UppercasePayload = {
      object: context.serviceTag, event: event.type, instance: event.instance, provider: event.provider, eventId: event.id, receivedAt: event.receivedAt,
    };
    if (event.type === 'message') {
      const m = event.message;
      // Only text is shouted; other message types are forwarded without content.
      if (m.content.type === 'text') {
        payload.message = { id: m.id, from: m.from, chat: m.chatJid, fromMe: m.fromMe, text: m.content.body.toUpperCase() };
      }
    }
    return payload;
  }

  signatureHeaders(body: string, secret: string): Record<string, string> {
    return { [this.signatureHeader]: `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` };
  }
}
