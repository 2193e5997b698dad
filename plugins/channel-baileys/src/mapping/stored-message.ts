import type { ChannelContext } from '@parley/core';
import type { proto, WAMessageKey } from '@whiskeysockets/baileys';
import { messageProto } from './record.js';

/** Content of a stored message by its key; Baileys' `getMessage` contract. */
export type StoredMessageLookup = (key: WAMessageKey) => Promise<proto.IMessage | undefined>;

/**
 * Answers messages from the instance's records (records keep `messageContextInfo`, so a poll's or an
 * event's `messageSecret` comes back with them). Baileys asks when it resends a message on a retry
 * request and when it decrypts an event response; the adapter asks when it decrypts a poll vote.
 */
export function storedMessages(context: Pick<ChannelContext, 'storage' | 'instanceId'>): StoredMessageLookup {
  return async (key) => {
    if (!key.id) return undefined;
    const record = await context.storage.messages.get(context.instanceId, key.id);
    return record ? messageProto(record.message) : undefined;
  };
}
