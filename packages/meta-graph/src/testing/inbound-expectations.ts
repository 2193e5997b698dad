import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { ChannelEventPayload, ChannelName, InboundMessage, MessageContent } from '@parley/core';
import type { DriverHarness } from './driver-harness.js';

/**
 * Reads a recorded webhook body of a channel plugin: `name`.json in the plugin's `test/fixtures`,
 * found from the compiled test file's URL (`dist/test/x.test.js` → `test/fixtures/name.json`).
 */
export function fixtureReader(testFileUrl: string): (name: string) => Buffer {
  return (name) => readFileSync(new URL(`../../test/fixtures/${name}.json`, testFileUrl));
}

/**
 * The `message` event a Meta channel emits for a message `user` sent in their one-to-one chat: the
 * mapped content, and the stored record (`DELIVERY_ACK`, keyed by the message id) with `message`.
 */
export function receivedFrom(
  channel: ChannelName, user: string,
): (id: string, timestamp: number, content: InboundMessage['content'], message: MessageContent, extra?: Partial<InboundMessage>) => ChannelEventPayload {
  return (id, timestamp, content, message, extra = {}) => ({
    type: 'message',
    message: {
      id, chatJid: user, from: user, fromUserId: user, fromMe: false, timestamp, chatType: 'individual', content, ...extra,
      record: {
        key: { remoteJid: user, fromMe: false, id }, message, messageTimestamp: String(timestamp), status: 'DELIVERY_ACK', provider: channel,
      },
    },
  });
}

/** Posts a webhook body, asserts Meta gets 200 and answers every event emitted so far. */
export async function deliverOk(harness: DriverHarness, body: Buffer, headers: Record<string, string>): Promise<ChannelEventPayload[]> {
  const answer = await harness.notify(body, headers);
  assert.equal(answer.status, 200);
  return harness.emitted;
}
