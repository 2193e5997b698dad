import {
  CapabilityNotSupportedError, requireCapability, type CallLinkType, type ChannelAdapter, type ChannelName, type MessagingCapability,
  type OutgoingType,
} from '@parley/core';
import { ensureConnected, type InstanceRuntime } from '../instances/instance-runtime.js';

/** The channel a send goes through, checked once: linked, able to message, connected. */
export interface SendingChannel {
  adapter: ChannelAdapter;
  messaging: MessagingCapability;
}

/**
 * Resolves the adapter for `provider` (409 `channel_not_linked`), its messaging (422), the content
 * type when given (422 `capability_not_supported`) and, for the main channel, the connection (409
 * `not_connected`) — in the order docs/rest-api.md documents. Nothing has been sent or stored yet.
 */
export function sendingChannel(runtime: InstanceRuntime, provider?: ChannelName, type?: OutgoingType): SendingChannel {
  const adapter = runtime.adapter(provider);
  const messaging = requireCapability(adapter, 'messaging');
  if (type !== undefined && !messaging.supports(type)) throw new CapabilityNotSupportedError(adapter.channel, `sending ${type} messages`);
  if (adapter === runtime.main) ensureConnected(runtime);
  return { adapter, messaging };
}

/** Creates a call link on a checked channel (spec 4.2 `/create-call-link`); 422 where the channel has none. */
export function createCallLink(channel: SendingChannel, type: CallLinkType): Promise<string> {
  if (!channel.messaging.createCallLink) throw new CapabilityNotSupportedError(channel.adapter.channel, 'creating call links');
  return channel.messaging.createCallLink(type);
}
