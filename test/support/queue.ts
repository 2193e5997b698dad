import assert from 'node:assert/strict';
import type { ChannelEventOf } from '@parley/core';
import type { FakeClock } from '@parley/testkit';
import type { MessagingPair, Phone } from './messaging.js';

/** A policy with every limit off, to which a test adds what it checks. */
export const NO_PACING = {
  perMinute: null, perHour: null, minGapMs: 0, jitterMs: 0, recipientGapMs: 0, quietHours: null,
  typing: { enabled: false },
};

/** Queue settings for tests: the worker looks at the queue every 10 ms (a fake clock is noticed at once). */
export const TEST_QUEUE = { enabled: true, maxQueued: 10_000, leaseMs: 60_000, recheckMs: 10, concurrency: 16 };

/** Sets `phone`'s pacing policy through the API; asserts 200. */
export async function setPolicy(p: MessagingPair, phone: Phone, policy: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await p.t.request('PUT', `/${phone.key}/queue/policy`, policy);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
}

/** Sends a text through the raw HTTP API; answers the HTTP answer. */
export function sendText(p: MessagingPair, from: Phone, to: Phone, text: string, options: Record<string, unknown> = {}) {
  return p.t.request('POST', `/${from.key}/message/text`, { to: to.number, text, ...options });
}

/** The texts `to` received from the sender so far, in arrival order, with the far side's time (Unix seconds). */
export function textsAt(p: MessagingPair, to: Phone): { id: string; text: string; timestamp: number; index: number }[] {
  return p.t.events.flatMap((e, index) => e.type === 'message' && e.instance === to.id && !e.message.fromMe && e.message.content.type === 'text'
    ? [{ id: e.message.id, text: e.message.content.body, timestamp: e.message.timestamp, index }]
    : []);
}

/** Presence events `to` got, with their position among all events. */
export function presencesAt(p: MessagingPair, to: Phone): { status: string; index: number }[] {
  return p.t.events.flatMap((e, index) => e.type === 'presence' && e.instance === to.id
    ? [{ status: (e as ChannelEventOf<'presence'>).status, index }] : []);
}

/** The instance's queue as `GET /{key}/queue` answers it. */
export async function queueOf(p: MessagingPair, phone: Phone): Promise<{ data: any[]; total: number; paused: boolean }> {
  const res = await p.t.request('GET', `/${phone.key}/queue?limit=500`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/**
 * Drives a fake clock through a paced queue, one send at a time: waits until the worker has given
 * the queue's head its slot (`scheduled`, due later), sets the clock to exactly that time, and waits
 * for the far side to receive it. Ends when `count` texts arrived at `to`.
 */
export async function driveQueue(p: MessagingPair, clock: FakeClock, from: Phone, to: Phone, count: number): Promise<void> {
  for (let received = textsAt(p, to).length; received < count; received = textsAt(p, to).length) {
    const head = await p.t.waitFor(async () => {
      if (textsAt(p, to).length > received) return { dueAt: undefined };
      // The lane's head, once the pacer placed it: the others wait behind it (`queued`, due already).
      const head = (await queueOf(p, from)).data.find((item) => item.queue.state === 'scheduled');
      return head ? { dueAt: Date.parse(head.queue.dueAt) } : undefined;
    }, 10_000, `the next send of ${from.number} to be placed`);
    if (head.dueAt !== undefined && head.dueAt > clock.now()) clock.set(head.dueAt);
    await p.t.waitFor(() => textsAt(p, to).length > received, 10_000, `send ${received + 1} to reach ${to.number}`);
  }
}
