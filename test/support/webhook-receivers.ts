import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ChannelEvent } from '@parley/core';
import { startHttpReceiver, type HttpReceiver, type ReceivedRequest } from '@parley/testkit';
import type { TestServer } from './test-server.js';

/** The webhook URL fields of spec 2.2 that have their own receiver in these tests. */
export const URL_KINDS = ['webhookMessage', 'webhookMessageFromMe', 'webhookGroup', 'webhookConnection', 'webhookQrCode'] as const;
export type UrlKind = (typeof URL_KINDS)[number];

/** One recording receiver per webhook URL field; instances share them, each under its own path. */
export type Receivers = Record<UrlKind, HttpReceiver>;

export async function startReceivers(): Promise<Receivers> {
  const entries = await Promise.all(URL_KINDS.map(async (kind) => [kind, await startHttpReceiver()] as const));
  return Object.fromEntries(entries) as Receivers;
}

export async function closeReceivers(receivers: Receivers): Promise<void> {
  await Promise.all(Object.values(receivers).map((r) => r.close()));
}

/** The settings that point every URL field at its receiver, under `/<path>`. */
export function urlsFor(receivers: Receivers, path: string): Record<UrlKind, string> {
  return Object.fromEntries(URL_KINDS.map((kind) => [kind, `${receivers[kind].url}/${path}`])) as Record<UrlKind, string>;
}

/** Requests a receiver got on one path, in arrival order. */
export function at(receiver: HttpReceiver, path: string): ReceivedRequest[] {
  return receiver.requests.filter((r) => r.url === `/${path}`);
}

/**
 * Verifies the Standard Webhooks signature independently of the engine: key = base64 after `whsec_`,
 * HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{raw body}`, header `v1,<base64>`.
 */
export function assertStandardSignature(request: ReceivedRequest, secret: string): void {
  const id = String(request.headers['webhook-id']);
  const timestamp = String(request.headers['webhook-timestamp']);
  assert.match(id, /^msg_[0-9A-Z]{26}_[A-Za-z0-9_-]{16}$/);
  assert.match(timestamp, /^\d{10}$/);
  assert.ok(Math.abs(Number(timestamp) * 1000 - request.time) < 300_000, 'webhook-timestamp is fresh');
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${request.body}`, 'utf8').digest();
  const [version, signature = ''] = String(request.headers['webhook-signature']).split(',');
  assert.equal(version, 'v1');
  const given = Buffer.from(signature, 'base64');
  assert.ok(given.length === expected.length && timingSafeEqual(given, expected), `webhook-signature of ${id} verifies with the instance secret`);
}

/** Verifies Meta's `X-Hub-Signature-256`: hex HMAC-SHA256 of the raw body keyed by the whole secret text. */
export function assertHubSignature(request: ReceivedRequest, secret: string): void {
  const expected = `sha256=${createHmac('sha256', secret).update(request.body, 'utf8').digest('hex')}`;
  assert.equal(request.headers['x-hub-signature-256'], expected);
}

/**
 * The native body an event must arrive as (docs/webhooks.md "native"), derived from the event as the
 * bus processed it: `data` is the payload without `type`; messages lose their record and media gets
 * the REST media URL with the `{key}` placeholder.
 */
export function expectedNative(event: ChannelEvent, publicUrl: string): unknown {
  const { id, instance, provider, receivedAt, type, ...payload } = event;
  let data: unknown = payload;
  if (event.type === 'message') {
    const { record: _record, ...message } = event.message;
    const content = message.content;
    data = {
      message: {
        ...message,
        content: 'media' in content
          ? { ...content, media: { ...content.media, url: content.media.link ?? `${publicUrl}/{key}/message/${encodeURIComponent(message.id)}/media` } }
          : content,
      },
    };
  }
  // The body is JSON: members that are undefined do not exist in it.
  return JSON.parse(JSON.stringify({ id, type, instance, provider, timestamp: new Date(receivedAt).toISOString(), data }));
}

/** The event id inside a delivery id (`msg_<event id>_<hash>`). */
export function eventIdOf(request: ReceivedRequest): string {
  return String(request.headers['webhook-id']).split('_')[1]!;
}

/** Webhook statistics of an instance through the typed client. */
export async function statsOf(t: TestServer, key: string): Promise<{ totalSent: number; totalFailed: number; totalPending: number; avgResponseTime: number }> {
  const res = await t.client(key).call('webhookStatistics');
  assert.equal(res.status, 200, JSON.stringify(res));
  return res.data;
}

/** Waits until every event so far is processed and no delivery of the given instances is pending. */
export async function waitUntilDelivered(t: TestServer, keys: string[], timeoutMs = 10_000): Promise<void> {
  await t.settle();
  await t.waitFor(async () => {
    for (const key of keys) if ((await statsOf(t, key)).totalPending !== 0) return false;
    return true;
  }, timeoutMs, 'every webhook delivery to be acknowledged');
}
