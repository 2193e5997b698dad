import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChannelEvent } from '@parley/core';
import { describeWebhookFormatConformance, registerPlugin, webhookEventFixtures } from '@parley/testkit';
import plugin, { CloudApiFormat, MetaFormat, type CloudApiWebhookPayload, type MetaWebhookPayload } from '../src/index.js';

const fixtures = webhookEventFixtures();
const format = new CloudApiFormat();
const meta = new MetaFormat();
// The Cloud API's set: other people's messages and the statuses of sent ones, on the main channel.
const delivered = Object.keys(fixtures.events).filter((name) =>
  (name.startsWith('message-') && !name.endsWith('-instagram') && !name.endsWith('-messenger') && name !== 'message-from-me' && name !== 'message-delete')
  || (name.startsWith('status-') && !name.endsWith('-instagram') && !name.endsWith('-messenger')) || name === 'receipt');

describeWebhookFormatConformance(format, { ...fixtures, unsupported: Object.keys(fixtures.events).filter((name) => !delivered.includes(name)) });

describe('cloud-api format', () => {
  const render = (name: string) => format.render(fixtures.events[name as keyof typeof fixtures.events] as ChannelEvent, fixtures.context) as CloudApiWebhookPayload;

  it('is the meta body with the Cloud API\'s object and product, without Parley\'s own members', () => {
    for (const name of delivered) {
      const event = fixtures.events[name as keyof typeof fixtures.events] as ChannelEvent;
      const ours = render(name);
      const theirs = meta.render(event, fixtures.context) as MetaWebhookPayload;
      const value = structuredClone(theirs.entry[0]!.changes[0]!.value);
      for (const message of value.messages ?? []) {
        delete (message as Partial<typeof message>).from_me;
        delete (message as Partial<typeof message>).chat_type;
        const media = (message as unknown as Record<string, { id?: string; url?: string }>)[message.type];
        if (['image', 'audio', 'video', 'document', 'sticker'].includes(message.type) && media) {
          delete media.url;
          media.id = message.id;
        }
      }
      assert.deepEqual(ours, { object: 'whatsapp_business_account', entry: [{ id: theirs.entry[0]!.id, changes: [{ field: 'messages', value: { ...value, messaging_product: 'whatsapp' } }] }] }, name);
    }
  });

  it('leaves out the instance\'s own messages, which a bot ported from the Cloud API would answer', () => {
    assert.equal(format.render(fixtures.events['message-from-me'] as ChannelEvent, fixtures.context), null);
    assert.notEqual(meta.render(fixtures.events['message-from-me'] as ChannelEvent, fixtures.context), null);
  });

  it('writes non-ASCII characters as \\u escapes, as Meta does, and signs that text', () => {
    const body = format.serialize({ text: 'olá 👍' });
    assert.equal(body, '{"text":"ol\\u00e1 \\ud83d\\udc4d"}');
    assert.deepEqual(JSON.parse(body), { text: 'olá 👍' });
    assert.deepEqual(meta.serialize({ text: 'olá 👍' }), body);
  });

  it('registers beside meta in the same plugin', async () => {
    assert.deepEqual(plugin.provides, { formats: ['meta', 'cloud-api'] });
    const registered = await registerPlugin(plugin, {});
    assert.deepEqual(registered.formats.map((f) => f.name), ['meta', 'cloud-api']);
  });
});

