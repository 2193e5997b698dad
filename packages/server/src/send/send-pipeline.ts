import { normalizeAddress, NotFoundError, SentNotRecordedError, ValidationError, type ChannelName, type MessageRecord, type Storage } from '@parley/core';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import type { MediaResolver } from '../services/media-resolver.js';
import type { ServerMetrics } from '../metrics/server-metrics.js';
import { MAPPINGS, type Mapping } from './content-mappings.js';
import type { MessageSuffix, Recipient, SendBodies } from './send-bodies.js';
import type { SendOptions } from './send-options.js';
import type { EventBus } from '../events/event-bus.js';
import type { SendQueue } from './send-queue.js';
import { sendingChannel, type SendingChannel } from './sending-channel.js';
import { storeSent } from './sent-record.js';

/**
 * The one send path of spec 4.2, 4.3 and 4.13, in the order docs/rest-api.md documents:
 * validate the body beyond its schema (400) → resolve the channel and check capability and
 * connection once (409 `channel_not_linked`, 422, 409 `not_connected`) → the quoted message (404) →
 * resolve media → enqueue in the instance's durable outbound queue (issue 16; {@link SendQueue}), from
 * which the worker sends and projects onto storage. Nothing is stored or sent before the last stage,
 * so a failure leaves no trace. With the queue turned off (`queue.enabled` false) the last stage
 * sends and projects at once, as before the queue existed. A route handler is one call to
 * {@link SendPipeline.send}.
 */
export class SendPipeline {
  constructor(
    private readonly storage: Storage,
    private readonly media: MediaResolver,
    private readonly bus: EventBus,
    private readonly metrics?: Pick<ServerMetrics, 'sent'>,
    private readonly queue?: SendQueue,
  ) {}

  /**
   * The stored message a reply, reaction or pin refers to, or a send still in the outbound queue
   * (with its `queue` state); 404 `message_not_found`.
   */
  async existing(runtime: InstanceRuntime, messageId: string): Promise<MessageRecord> {
    const record = await this.storage.messages.get(runtime.id, messageId) ?? await this.queue?.queued(runtime.id, messageId);
    if (!record) throw new NotFoundError(`message ${messageId}`, 'message_not_found');
    return record;
  }

  /**
   * Sends the validated body of `POST /{key}/message/{suffix}`, or a reply to `quotedId` (spec 4.3).
   * `runKey`: the seed of its run under an idempotency key, from which its message id derives (queue only).
   */
  async send<S extends MessageSuffix>(runtime: InstanceRuntime, suffix: S, body: SendBodies[S] & SendOptions, replyTo?: string, runKey?: string): Promise<MessageRecord> {
    const mapping = MAPPINGS[suffix] as Mapping<S>;
    // `quoted` in the body is the reply route's path parameter (the schema has it on reply types only).
    const quotedId = replyTo ?? ('quoted' in body ? (body as Recipient).quoted?.messageId : undefined);
    mapping.check?.(body, runtime.addressing);
    if (!this.queue && (body.delay !== undefined || body.sendAt !== undefined)) {
      throw new ValidationError(`body.${body.delay !== undefined ? 'delay' : 'sendAt'} needs the outbound queue, which this server runs without (queue.enabled false)`);
    }
    const given = 'provider' in body ? (body as Recipient).provider : undefined;
    // A reaction or pin goes through its target's channel; the target's 404 comes before the channel's checks.
    const targetId = mapping.targetOf?.(body);
    const target = targetId === undefined ? undefined : await this.existing(runtime, targetId);
    let channel: SendingChannel;
    let quoted: MessageRecord | undefined;
    if (quotedId === undefined) {
      channel = sendingChannel(runtime, target ? target.provider : given, mapping.type);
    } else {
      // An unknown quoted message is a 404, but the channel's 409/422 come first.
      quoted = (await this.storage.messages.get(runtime.id, quotedId)) ?? undefined;
      if (!quoted) {
        sendingChannel(runtime, given, mapping.type);
        throw new NotFoundError(`message ${quotedId}`, 'message_not_found');
      }
      // A reply goes through the quoted message's channel unless the body names one.
      channel = sendingChannel(runtime, given ?? channelOf(runtime, quoted.provider), mapping.type);
    }
    // Main-channel recipients are what the main driver's addressing accepts, in its form; social channels take their own user ids.
    const main = channel.adapter === runtime.main;
    if ('to' in body && main) normalizeAddress(runtime.addressing, (body as Recipient).to, 'body.to');
    const built = await mapping.build({ media: this.media, route: runtime.record, channel, addressing: runtime.addressing, target }, body);
    const { content } = built;
    // Reactions and pins go to their target's chat; a recipient is normalized and resolved before anything is queued.
    const address = main && !target ? normalizeAddress(runtime.addressing, built.to, 'body.to') : built.to;
    const to = target || !channel.messaging.resolveRecipient ? address : await channel.messaging.resolveRecipient(address);
    if (this.queue) return this.queue.accept(runtime, channel, { to, content, ...(quoted ? { quoted } : {}) }, body, runKey);
    const record = await channel.messaging.send({ to, content, quoted });
    this.metrics?.sent(channel.adapter.channel, mapping.type);
    // Sent: a failure to store it now must not read as a send that can be made again.
    return storeSent(this.bus, runtime.id, channel.adapter.channel, content, record).catch((err: unknown) => {
      throw new SentNotRecordedError(record.key.id, err);
    });
  }
}

/** The provider a reply to a message of `provider` goes through: undefined (the main channel) for the main channel's own messages. */
function channelOf(runtime: InstanceRuntime, provider?: ChannelName): ChannelName | undefined {
  return provider !== runtime.main.channel ? provider : undefined;
}
