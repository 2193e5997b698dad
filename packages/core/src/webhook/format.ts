import type { ChannelEvent } from '../channel/events.js';
import type { ChannelName } from '../domain/channel-name.js';
import type { InstanceRecord } from '../domain/instance.js';

/** What a format may read besides the event. */
export interface WebhookRenderContext {
  /** The instance the event belongs to (read-only; never copy secrets into a payload). */
  instance: Readonly<InstanceRecord>;
  /**
   * The wire channel of the instance's main driver (`whatsapp`); events of any other `provider` come
   * from a linked social channel. Absent when the instance's main driver is not configured.
   */
  mainChannel?: ChannelName;
  /** The service tag: meta-format `object` (configurable, default `parley`). */
  serviceTag: string;
  /** Public REST media URL of a message (spec 6.3: incoming media is fetched at `url`). */
  mediaUrl(messageId: string): string;
}

/**
 * A webhook format plugin: turns a normalized channel event into the JSON body receivers get. Formats
 * know nothing about channels' wire types nor about delivery.
 */
export interface WebhookFormat {
  /** `native`, `meta`, or a plugin's own name; selected per instance by `webhookFormat`. */
  readonly name: string;
  /**
   * Renders the body for one event, or null when this format does not carry that event type (for
   * example internal storage events). Must be pure: the same event renders the same body.
   */
  render(event: ChannelEvent, context: WebhookRenderContext): unknown | null;
  /**
   * Extra signature headers of the format, computed over the exact body bytes (the meta format adds
   * `X-Hub-Signature-256` as Meta sends it). Standard Webhooks headers are added by the delivery engine.
   */
  signatureHeaders?(body: string, secret: string): Record<string, string>;
  /**
   * The body's text (`JSON.stringify` without it). The meta formats escape every non-ASCII character
   * as `\uXXXX`, as Meta's webhooks do: receivers written for Meta (whatsapp-api-js) verify the
   * signature over the escaped text.
   */
  serialize?(body: unknown): string;
}
