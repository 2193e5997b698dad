import { CapabilityNotSupportedError, type OutgoingContent } from '@parley/core';

/** Send types the sandbox carries. */
export const SANDBOX_SEND_TYPES = new Set<OutgoingContent['type']>(['text']);

/** The proto-shaped `message` (spec 2.4) of an outgoing content, as the receiving phone stores it. */
export function outgoingToProto(content: OutgoingContent): Record<string, unknown> {
  switch (content.type) {
    case 'text':
      return { extendedTextMessage: { text: content.text } };
    default:
      throw new CapabilityNotSupportedError('sandbox', `sending ${content.type} messages`);
  }
}
