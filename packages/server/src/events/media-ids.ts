import type { InboundMessage, StateRepository } from '@parley/core';

/**
 * Media a channel names by an id of its own instead of their message's id (an Instagram share of a
 * reel or post carries Instagram's id of it, which the meta webhooks deliver as the media's `id`):
 * that id → the id of the latest message carrying it, per instance, kept in the state repository
 * under the instance's prefix (deleted with the instance). The Cloud API media routes resolve it.
 */
const namespace = (instanceId: string) => `${instanceId}:media-ids`;

/** The channel's own id of the message's media, when it has one other than the message id. */
function ownMediaId(message: InboundMessage): string | undefined {
  const content = message.content as { media?: { id?: string } };
  const id = content.media?.id;
  return id && id !== message.id ? id : undefined;
}

/** Records the media ids of `messages` that are not their message id (one write each; none for the usual message). */
export function recordMediaIds(state: Pick<StateRepository, 'put'>, instanceId: string, messages: readonly InboundMessage[]): Promise<void>[] {
  return messages.flatMap((m) => {
    const id = ownMediaId(m);
    return id ? [state.put(namespace(instanceId), id, m.id)] : [];
  });
}

/** The message whose media the channel named `mediaId`, if one was recorded. */
export function messageOfMediaId(state: Pick<StateRepository, 'get'>, instanceId: string, mediaId: string): Promise<string | null> {
  return state.get<string>(namespace(instanceId), mediaId);
}
