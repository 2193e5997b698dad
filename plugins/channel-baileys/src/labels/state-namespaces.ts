import type { StateRepository } from '@parley/core';

/** The channel's state documents of an instance. */
export type ChannelStateName = 'labels' | 'label-chats' | 'stories';
const NAMES: ChannelStateName[] = ['labels', 'label-chats', 'stories'];

/**
 * The namespace of one kind of the channel's state documents of an instance: under `<instance>:`, the
 * prefix deleting an instance clears (services/instance-admin.ts), so nothing of a deleted instance stays.
 */
export function channelNamespace(instanceId: string, name: ChannelStateName): string {
  return `${instanceId}:baileys.${name}`;
}

/**
 * Moves documents from the namespaces earlier versions used (`baileys.<instance>.<name>`, outside the
 * instance's prefix, which outlived a deleted instance) into {@link channelNamespace}'s, once: labels came
 * from the phone's app state and would not be sent again. Idempotent — a move cut short goes on next time.
 */
export async function moveLegacyState(state: StateRepository, instanceId: string): Promise<void> {
  for (const name of NAMES) {
    const legacy = `baileys.${instanceId}.${name}`;
    for (const { id, value } of await state.list(legacy)) {
      await state.put(channelNamespace(instanceId, name), id, value);
      await state.delete(legacy, id);
    }
  }
}
