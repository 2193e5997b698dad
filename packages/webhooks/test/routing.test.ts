import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ChannelEvent, InstanceRecord, Storage } from '@parley/core';
import { INTERNAL_EVENT_NAMES, startHttpReceiver, webhookEventFixtures, type HttpReceiver, type ReceivedRequest } from '@parley/testkit';
import { deliveryId, type WebhookEngine } from '../src/index.js';
import {
  assertHubSignature, assertStandardSignature, backends, createInstance, engineFor, eventFor, eventually, recordingLogger, type LogEntry,
} from './support/harness.js';

/** Path each fixture goes to when every URL is set (spec 2.2). */
function expectedPath(name: string): string {
  if (name === 'message-from-me') return '/from-me';
  if (name.startsWith('group-')) return '/group';
  if (name.startsWith('connection-')) return '/connection';
  if (name === 'qrcode') return '/qrcode';
  if (name === 'history') return '/history';
  return '/message';
}

const isInternal = (name: string) => (INTERNAL_EVENT_NAMES as readonly string[]).includes(name);

function formatOf(request: ReceivedRequest): string {
  const json = request.json as Record<string, unknown>;
  return 'object' in json ? 'meta' : 'native';
}

for (const backend of backends()) {
  describe(`webhook routing (${backend.name} storage, real receiver)`, () => {
    let storage: Storage;
    let receiver: HttpReceiver;
    let engine: WebhookEngine;
    const logs: LogEntry[] = [];
    const secrets: string[] = [];

    before(async () => {
      storage = await backend.open();
      receiver = await startHttpReceiver();
      // Exact delivery counts: an attempt that outlasts TEST_OPTIONS' 500 ms time-out on a loaded machine is
      // retried (at-least-once, a second request), so these suites give attempts and leases ample time.
      engine = engineFor(storage, { timeoutMs: 10_000, leaseMs: 25_000 }, { logger: recordingLogger(logs) });
      engine.start();
    });

    after(async () => {
      await engine.stop();
      await receiver.close();
      await storage.close();
    });

    const named = (instance: InstanceRecord, names?: string[]) =>
      Object.entries(webhookEventFixtures().events)
        .filter(([name]) => !names || names.includes(name))
        .map(([name, event]) => [name, eventFor(instance, event)] as [string, ChannelEvent]);

    const requestsUnder = (prefix: string) => receiver.requests.filter((r) => r.url.startsWith(prefix));

    it('routes every event kind to its URL in both formats with valid signatures', async () => {
      const base = `${receiver.url}/all`;
      const instance = await createInstance(storage, {
        webhookFormat: 'both', webhookMessage: `${base}/message`, webhookGroup: `${base}/group`, webhookConnection: `${base}/connection`,
        webhookQrCode: `${base}/qrcode`, webhookMessageFromMe: `${base}/from-me`, webhookHistory: `${base}/history`,
      });
      secrets.push(instance.key, instance.webhookSecret);
      const events = named(instance);
      for (const [, event] of events) await engine.handle(event, instance);

      const expected = events.flatMap(([name, event]) => (isInternal(name) ? ['native'] : ['native', 'meta']).map((format) => {
        const url = `${base}${expectedPath(name)}`;
        return `${new URL(url).pathname} ${format} ${deliveryId(event.id, format, url)}`;
      }));
      await eventually(() => engine.stats(instance.id), (s) => s.totalPending === 0);
      const requests = requestsUnder('/all/');
      assert.deepEqual(requests.map((r) => `${r.url} ${formatOf(r)} ${String(r.headers['webhook-id'])}`).sort(), expected.sort());
      const { totalSent, totalFailed, totalPending } = await engine.stats(instance.id);
      assert.deepEqual({ totalSent, totalFailed, totalPending }, { totalSent: expected.length, totalFailed: 0, totalPending: 0 });

      const eventIds = new Map(events.map(([, event]) => [event.id, event]));
      for (const request of requests) {
        assert.equal(request.method, 'POST');
        assert.equal(request.headers['content-type'], 'application/json');
        assert.equal(request.headers['user-agent'], 'Parley-Webhooks/0.1');
        assertStandardSignature(request, instance.webhookSecret);
        const json = request.json as Record<string, unknown>;
        assert.equal(json.instance, instance.id);
        if (formatOf(request) === 'meta') assertHubSignature(request, instance.webhookSecret);
        else assert.ok(eventIds.has(String(json.id)), 'native body carries the event id');
        for (const secret of secrets) assert.ok(!request.body.includes(secret), 'a body leaks a secret');
      }
    });

    it('falls back to webhookMessage for every type whose URL is empty', async () => {
      const url = `${receiver.url}/fallback`;
      const instance = await createInstance(storage, { webhookFormat: 'native', webhookMessage: url });
      const events = named(instance, ['message-from-me', 'group-participants', 'group-update', 'connection-open', 'qrcode', 'history', 'health']);
      for (const [, event] of events) await engine.handle(event, instance);
      await eventually(() => engine.stats(instance.id), (s) => s.totalPending === 0);
      assert.deepEqual(
        requestsUnder('/fallback').map((r) => `${r.url} ${String(r.headers['webhook-id'])}`).sort(),
        events.map(([, event]) => `/fallback ${deliveryId(event.id, 'native', url)}`).sort(),
      );
    });

    it('delivers nothing while allowWebhook is false or no URL applies', async () => {
      const off = await createInstance(storage, { allowWebhook: false, webhookMessage: `${receiver.url}/off` });
      const noUrl = await createInstance(storage, { webhookMessage: '' });
      for (const [, event] of named(off)) await engine.handle(event, off);
      for (const [, event] of named(noUrl)) await engine.handle(event, noUrl);
      assert.deepEqual(await engine.stats(off.id), { totalSent: 0, totalFailed: 0, totalPending: 0, avgResponseTime: 0 });
      assert.deepEqual(await engine.stats(noUrl.id), { totalSent: 0, totalFailed: 0, totalPending: 0, avgResponseTime: 0 });
    });

    it('meta renders nothing for internal kinds: such events make no meta delivery', async () => {
      const url = `${receiver.url}/meta-only`;
      const instance = await createInstance(storage, { webhookFormat: 'meta', webhookMessage: url });
      const events = named(instance, ['history', 'chats-upsert', 'message-text']);
      for (const [, event] of events) await engine.handle(event, instance);
      await eventually(() => engine.stats(instance.id), (s) => s.totalPending === 0);
      const text = events.find(([name]) => name === 'message-text')![1];
      assert.deepEqual(requestsUnder('/meta-only').map((r) => r.headers['webhook-id']), [deliveryId(text.id, 'meta', url)]);
    });

    it('forwards only events about listed numbers when allowNumber is a list; instance-level events always pass', async () => {
      const url = `${receiver.url}/allow`;
      const instance = await createInstance(storage, { webhookMessage: url, allowNumber: '5511988887777, +5511944443333' });
      const events = named(instance);
      for (const [, event] of events) await engine.handle(event, instance);
      await eventually(() => engine.stats(instance.id), (s) => s.totalPending === 0);
      const delivered = new Set(requestsUnder('/allow').map((r) => (r.json as { id: string }).id));
      const passed = events.filter(([, event]) => delivered.has(event.id)).map(([name]) => name).sort();
      assert.deepEqual(passed, [
        // 5511988887777 is the peer of the direct chat; 5511944443333 was added to the group.
        'call', 'chats-upsert', 'connection-close', 'connection-open', 'contacts-upsert', 'group-participants', 'health', 'history',
        'message-audio', 'message-button', 'message-contacts', 'message-delete', 'message-document', 'message-edit', 'message-event-response', 'message-from-me',
        'message-image', 'message-image-instagram', 'message-image-messenger', 'message-interactive-button', 'message-interactive-list',
        'message-location', 'message-poll-vote', 'message-reaction', 'message-reaction-removed', 'message-reel-instagram', 'message-referral',
        'message-reply-context', 'message-sticker', 'message-story-mention-instagram', 'message-story-reply-instagram', 'message-text',
        'message-text-instagram', 'message-text-messenger', 'message-unsupported', 'message-unsupported-instagram', 'message-video', 'presence',
        'qrcode', 'status-delivered', 'status-delivered-messenger', 'status-failed', 'status-played', 'status-read', 'status-read-instagram',
        'status-read-messenger', 'status-sent',
      ]);
    });

    it('never logs an instance key or webhook secret', () => {
      const text = JSON.stringify(logs, (_key, value: unknown) => (value instanceof Error ? value.message : value));
      for (const secret of secrets) assert.ok(!text.includes(secret));
    });
  });
}
