import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import type { FakeSocket, imageMessage } from '@parley/channel-baileys/testing';
import { waSockets } from './fixtures/whatsapp-fake-socket.plugin.js';
import { startTestServer, type TestServer, type TestServerOptions } from './test-server.js';

const whatsappPlugin = fileURLToPath(new URL('./fixtures/whatsapp-fake-socket.plugin.js', import.meta.url));

/** The real server with the real WhatsApp channel plugin over fake Baileys sockets (see the fixture), on memory storage. */
export function startWhatsAppServer(options: Omit<TestServerOptions, 'plugins' | 'storage'> = {}): Promise<TestServer> {
  return startTestServer({
    ...options,
    plugins: [{ package: '@parley/storage-memory' }, { package: '@parley/webhook-native' }, { package: whatsappPlugin }],
    config: { defaultChannel: 'whatsapp', ...options.config },
  });
}

/** A WhatsApp instance created and connected through the API, its socket opened as device 12 of `number`. */
export async function connectedWhatsApp(t: TestServer, name: string, number: string): Promise<{ id: string; key: string; socket: FakeSocket }> {
  const instance = await t.createInstance({ channel: 'whatsapp', name });
  const api = t.client(instance.key);
  const built = waSockets.all.length + 1;
  // The connect answers once the socket opens (or shows a QR code), as with WhatsApp's servers.
  const connecting = api.call('connectInstance');
  const socket = await waSockets.next(built);
  socket.open({ id: `${number}:12@s.whatsapp.net`, name });
  assert.equal((await connecting).phoneConnected, true);
  await t.waitFor(async () => (await api.call('getInstance')).instance.phoneConnected, 5000, `${name} open`);
  return { id: instance.id, key: instance.key, socket };
}

/** A message as Baileys decodes it. */
type WAMessage = ReturnType<typeof imageMessage>;

/** Delivers `message` through the socket as Baileys does (`messages.upsert`, notify) and waits until its chat lists it. */
export async function receive(t: TestServer, instance: { key: string; socket: FakeSocket }, message: WAMessage): Promise<void> {
  instance.socket.emit('messages.upsert', { messages: [message], type: 'notify' });
  await t.settle();
  const api = t.client(instance.key);
  const jid = message.key.remoteJid!;
  await t.waitFor(async () => (await api.call('listChatMessages', { params: { jid } })).data.some((m) => m.key.id === message.key.id), 5000, 'the stored message');
}
