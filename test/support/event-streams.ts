import type { PluginEntry } from '@parley/server';
import { jidOf, type Phone } from './conversation.js';
import type { TestServer } from './test-server.js';

/** Storage plugin entries the stream tests run on: memory, SQLite, and Redis when `redisUrl` is given. */
export function streamStorages(redisUrl: string | undefined, prefix: string): { name: string; plugins: PluginEntry[] }[] {
  const rest: PluginEntry[] = [
    { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } }, { package: '@parley/webhook-native' }, { package: '@parley/webhook-meta' },
  ];
  return [
    { name: 'memory', plugins: [{ package: '@parley/storage-memory' }, ...rest] },
    { name: 'sqlite', plugins: [{ package: '@parley/storage-sqlite' }, ...rest] },
    ...(redisUrl ? [{ name: 'redis', plugins: [{ package: '@parley/storage-redis', options: { url: redisUrl, keyPrefix: prefix } }, ...rest] }] : []),
  ];
}

/** Sends texts from one phone to another, one after the other, and waits until the receiver's bus has handled each. */
export async function sendTexts(t: TestServer, from: Phone, to: Phone, texts: string[]): Promise<void> {
  for (const text of texts) {
    const sent = await t.client(from.key).call('sendText', { body: { to: to.number, text } });
    const id = sent.data.key.id;
    await t.waitFor(() => t.events.some((e) => e.instance === to.id && e.type === 'message' && (e as { message?: { id?: string } }).message?.id === id),
      5000, `message ${id} to reach ${jidOf(to.number)}`);
  }
  await t.settle();
}

/** The text of a native `message` event body. */
export function textOf(body: any): string | undefined {
  return body?.data?.message?.content?.body;
}

/** The ids of the events of `instance` the bus handled after `after` (id order). */
export function handledAfter(t: TestServer, instance: string, after: string): string[] {
  return t.events.filter((e) => e.instance === instance && e.id > after).map((e) => e.id).sort();
}
