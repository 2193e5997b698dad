import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import {
  CapabilityNotSupportedError, requireCapability,
  type ChannelAdapter, type ChannelEventPayload, type InboundMessage, type MessageRecord, type MessagingCapability,
} from '@parley/core';
import type { ChannelConformanceDeclaration, ConformanceHost, InboundRequest } from './channel-conformance-harness.js';
import { CAPABILITY_NAMES } from './channel-conformance-examples.js';
import type { ConformanceRun } from './channel-conformance-host.js';

type MessageEvent = Extract<ChannelEventPayload, { type: 'message' }>;
type StatusEvent = Extract<ChannelEventPayload, { type: 'message.status' }>;

/** A fresh message id, shaped like WhatsApp's (every channel under test accepts it as an opaque id). */
export function freshId(): string {
  return `3EB0${randomBytes(10).toString('hex').toUpperCase()}`;
}

export function messagingOf(adapter: ChannelAdapter): MessagingCapability {
  return requireCapability(adapter, 'messaging');
}

/** The `message` event of `id`, once emitted (and projected). */
export function messageEvent(host: ConformanceHost, id: string, fromMe: boolean): Promise<MessageEvent> {
  return host.waitFor(`a message event for ${id}`, (e): e is MessageEvent => e.type === 'message' && e.message.id === id && e.message.fromMe === fromMe);
}

/** The `message.status` event reporting `status` for `id`, once emitted (and projected). */
export function statusEvent(host: ConformanceHost, id: string, status: StatusEvent['status']): Promise<StatusEvent> {
  return host.waitFor(`status ${status} of ${id}`, (e): e is StatusEvent => e.type === 'message.status' && e.messageId === id && e.status === status);
}

/** Connects through the far side and checks the adapter reports an open connection (main channels). */
export async function connectChecked(run: ConformanceRun, declares: ChannelConformanceDeclaration): Promise<void> {
  await run.farSide.connect();
  if (!declares.capabilities.includes('connection')) return;
  const state = requireCapability(run.host.adapter(), 'connection').state();
  assert.equal(state.phoneConnected, true, 'connection.state().phoneConnected after the far side connected');
  assert.ok(state.user?.id, 'connection.state().user names the account');
  if (state.status !== undefined) assert.equal(state.status, 'open');
}

/** Every capability family is present exactly when declared; the others answer 422 with the declared gap. */
export function checkCapabilities(adapter: ChannelAdapter, declares: ChannelConformanceDeclaration): void {
  const present = CAPABILITY_NAMES.filter((name) => adapter.capabilities[name] !== undefined);
  assert.deepEqual(present, CAPABILITY_NAMES.filter((name) => declares.capabilities.includes(name)), 'capability families present');
  for (const name of CAPABILITY_NAMES.filter((candidate) => !declares.capabilities.includes(candidate))) {
    const gap = adapter.capabilityGaps?.[name];
    assert.throws(() => requireCapability(adapter, name), (err: unknown) => {
      assert.ok(err instanceof CapabilityNotSupportedError, `${name}: CapabilityNotSupportedError`);
      assert.equal(err.status, 422);
      assert.equal(err.code, 'capability_not_supported');
      assert.equal(err.message, `${adapter.channel} does not support ${name}${gap ? `: ${gap}` : ''}`);
      return true;
    });
  }
}

/** The members of a record's `message` that are not declared context members. */
function typedMembers(message: MessageRecord['message'], declares: ChannelConformanceDeclaration): string[] {
  return Object.keys(message).filter((name) => !declares.contextMembers?.includes(name));
}

/** A fresh send's record: the caller's chat, own, PENDING, a numeric timestamp and exactly the declared member. */
export function checkSentRecord(record: MessageRecord, declares: ChannelConformanceDeclaration, member: string, channel: string): void {
  assert.equal(record.key.remoteJid, declares.peer.chatJid, 'key.remoteJid');
  assert.equal(record.key.fromMe, true, 'key.fromMe');
  assert.equal(typeof record.key.id, 'string');
  assert.ok(record.key.id.length > 0, 'key.id is set');
  assert.equal(record.status, 'PENDING');
  assert.match(record.messageTimestamp, /^\d+$/, 'messageTimestamp is Unix seconds as text');
  assert.deepEqual(typedMembers(record.message, declares), [member], 'the typed member of message (besides declared context members)');
  assert.equal(typeof record.message[member], 'object');
  if (record.provider !== undefined) assert.equal(record.provider, channel, 'provider');
}

/** An inbound message as the suite asked the far side to send it. */
export function checkInbound(message: InboundMessage, request: InboundRequest, declares: ChannelConformanceDeclaration): void {
  assert.equal(message.content.type, request.kind, 'content.type');
  assert.equal(message.fromMe, false);
  assert.equal(message.chatType, 'individual');
  assert.equal(message.chatJid, declares.peer.chatJid, 'chatJid');
  assert.ok(message.from.length > 0, 'from');
  assert.ok(Number.isInteger(message.timestamp) && message.timestamp > 1_000_000_000, 'timestamp is Unix seconds');
  assert.deepEqual(
    { remoteJid: message.record.key.remoteJid, fromMe: message.record.key.fromMe, id: message.record.key.id },
    { remoteJid: message.chatJid, fromMe: false, id: message.id }, 'record.key',
  );
  assert.equal(message.record.messageTimestamp, String(message.timestamp), 'record.messageTimestamp');
  assert.equal(typedMembers(message.record.message, declares).length, 1, 'one typed member in the record');
  const content = message.content;
  if (content.type === 'text') assert.equal(content.body, request.text, 'text body');
  if ('media' in content) {
    assert.ok(content.media.id.length > 0, 'media.id');
    assert.ok(content.media.mimeType.length > 0, 'media.mimeType');
  }
}
