import type { ChannelEvent, InboundMessage, WebhookFormat, WebhookRenderContext } from '@parley/core';
import type { NativeContent, NativeData, NativeMessage, NativeWebhookPayload } from './native-payload.js';

/** Gives media its download address: the channel's public link when there is one, else the REST media endpoint. */
function nativeContent(message: InboundMessage, context: WebhookRenderContext): NativeContent {
  const { content } = message;
  if (!('media' in content)) return content;
  return Object.assign({}, content, { media: Object.assign({}, content.media, { url: content.media.link ?? context.mediaUrl(message.id) }) });
}

/** The message as receivers get it; the storage record stays out (it is protocol-shaped and answered by REST). */
function nativeMessage(message: InboundMessage, context: WebhookRenderContext): NativeMessage {
  const { record: _record, content: _content, ...rest } = message;
  // Object.assign: a spread followed by a new member costs V8 a new hidden class per object.
  return Object.assign(rest, { content: nativeContent(message, context) });
}

/**
 * Parley's native format: every event kind in one envelope `{id, type, instance, provider, timestamp,
 * data}` where `data` is the event payload without `type`. Internal kinds (history, chat and contact
 * upserts, deletions) are delivered too, so a receiver can mirror the instance's state.
 */
export class NativeFormat implements WebhookFormat {
  readonly name = 'native';

  render(event: ChannelEvent, context: WebhookRenderContext): NativeWebhookPayload {
    const { id, instance, provider, receivedAt, type, ...payload } = event;
    const data = event.type === 'message' ? { message: nativeMessage(event.message, context) } : payload;
    return { id, type, instance, provider, timestamp: new Date(receivedAt).toISOString(), data: data as NativeData };
  }
}
