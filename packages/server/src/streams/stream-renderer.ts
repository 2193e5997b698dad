import type { ChannelEvent, InstanceRecord } from '@parley/core';
import type { WebhookEngine } from '@parley/webhooks';
import { frameText, type WireKind } from './stream-frames.js';

/** What a stream shows: one instance's events, or (admin) every instance's, each naming its instance. */
export interface StreamView {
  /** Admin streams wrap each body as `{instance, name, format, payload}`. */
  admin: boolean;
  /** `?format=`: every event in this format; each instance's own format otherwise. */
  format?: string;
}

/** One event's frame for a view on a wire (UTF-8), or null when its format does not carry the event. */
export type FrameSource = (view: StreamView, wire: WireKind) => Buffer | null;

/**
 * Turns events into stream frames: the body a webhook of the chosen format receives (rendered by the
 * webhook engine), under the event's id and kind.
 */
export class StreamRenderer {
  constructor(private readonly webhooks: Pick<WebhookEngine, 'renderBody'>) {}

  /** The format a view shows an instance's events in: `?format=`, else the instance's (`both` shows `native`). */
  formatOf(view: StreamView, instance: InstanceRecord): string {
    if (view.format) return view.format;
    const own = instance.webhook.webhookFormat;
    return own === 'both' ? 'native' : own;
  }

  /** The frame text of `event` for `view` on `wire`, or null when the format does not carry the event. */
  text(event: ChannelEvent, instance: InstanceRecord, view: StreamView, wire: WireKind): string | null {
    const format = this.formatOf(view, instance);
    const body = this.webhooks.renderBody(format, event, instance);
    if (body === null) return null;
    const data = view.admin ? `{"instance":${JSON.stringify(instance.id)},"name":${JSON.stringify(instance.name)},"format":${JSON.stringify(format)},"payload":${body}}` : body;
    return frameText({ id: event.id, event: event.type, data }, wire);
  }

  /**
   * A renderer of one event for many clients: each distinct (format, admin, wire) is rendered and
   * encoded to UTF-8 once, however many clients show it (1,000 clients of one instance cost one
   * render and share one buffer; encoding the text per client took most of a fan-out's CPU).
   */
  memo(event: ChannelEvent, instance: InstanceRecord): FrameSource {
    const done = new Map<string, Buffer | null>();
    return (view, wire) => {
      const key = `${this.formatOf(view, instance)}|${view.admin ? 1 : 0}|${wire}`;
      let bytes = done.get(key);
      if (bytes === undefined) {
        const text = this.text(event, instance, view, wire);
        done.set(key, (bytes = text === null ? null : Buffer.from(text)));
      }
      return bytes;
    };
  }
}
