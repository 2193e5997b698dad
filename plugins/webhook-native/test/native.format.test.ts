import assert from 'node:assert/strict';
import type { ChannelEventOf } from '@parley/core';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import {
  describeWebhookFormatConformance, EXTENSION_EVENT_IDS, INTERNAL_EVENT_NAMES, registerPlugin, SPEC_EVENT_IDS, webhookEventFixtures,
} from '@parley/testkit';
import plugin, { NativeFormat } from '../src/index.js';

const fixtures = webhookEventFixtures();
const format = new NativeFormat();
// Read from the source tree: the compiled test runs from dist/test.
const schema = JSON.parse(readFileSync(new URL('../../../../docs/webhooks/native.schema.json', import.meta.url), 'utf8')) as object;

describeWebhookFormatConformance(format, { ...fixtures, unsupported: [] });

describe('native format', () => {
  const ajv = new Ajv({ strict: true, allErrors: true });
  addFormats.default(ajv);
  const validate = ajv.compile(schema);

  for (const name of [...SPEC_EVENT_IDS, ...EXTENSION_EVENT_IDS, ...INTERNAL_EVENT_NAMES]) {
    it(`${name} validates against docs/webhooks/native.schema.json`, () => {
      const body = format.render(fixtures.events[name], fixtures.context);
      assert.ok(validate(body), ajv.errorsText(validate.errors));
    });
  }

  it('a text with mentions and a link preview validates, and carries both', () => {
    const event = fixtures.events['message-text'] as ChannelEventOf<'message'>;
    const preview = { url: 'https://shop.example/mug', title: 'The blue mug', description: 'A mug, blue.', thumbnail: true };
    const rich = {
      ...event, message: { ...event.message, content: { type: 'text', body: 'see https://shop.example/mug @5511988880002', preview }, mentions: ['5511988880002@s.whatsapp.net'] },
    };
    const body = format.render(rich as ChannelEventOf<'message'>, fixtures.context) as { data: { message: Record<string, unknown> } };
    assert.ok(validate(body), ajv.errorsText(validate.errors));
    assert.deepStrictEqual(body.data.message.mentions, ['5511988880002@s.whatsapp.net']);
    assert.deepStrictEqual((body.data.message.content as { preview: unknown }).preview, preview);
  });

  it('the schema refuses a body that breaks it', () => {
    const body = format.render(fixtures.events['message-image'], fixtures.context) as { data: { message: { content: { media: object } } } };
    const { url: _url, ...withoutUrl } = body.data.message.content.media as { url: string };
    assert.equal(validate({ ...body, data: { message: { ...body.data.message, content: { type: 'image', media: withoutUrl } } } }), false);
    assert.equal(validate({ ...body, extra: true }), false);
    assert.equal(validate({ ...body, type: 'presence' }), false);
  });

  it('renders the envelope with the event payload as data', () => {
    const event = fixtures.events['status-failed'];
    assert.deepStrictEqual(format.render(event, fixtures.context), {
      id: '01JD7R00000000000000000035',
      type: 'message.status',
      instance: 'ins_01JD7Q4X9M2K8V3T6R5P0N1B2C',
      provider: 'whatsapp',
      timestamp: '2025-01-01T02:53:55.250Z',
      data: {
        messageId: '3EB0C0FFEE0000000000000D', chatJid: '5511988887777@s.whatsapp.net', recipientId: '5511988887777', status: 'failed',
        timestamp: 1735700035,
        error: { code: 463, title: 'Account restricted', message: 'The message could not be delivered because the account is restricted', details: 'restricted' },
      },
    });
  });

  it('renders a message without its storage record, media with the REST media URL', () => {
    assert.deepStrictEqual(format.render(fixtures.events['message-image'], fixtures.context), {
      id: '01JD7R00000000000000000002',
      type: 'message',
      instance: 'ins_01JD7Q4X9M2K8V3T6R5P0N1B2C',
      provider: 'whatsapp',
      timestamp: '2025-01-01T02:53:22.250Z',
      data: {
        message: {
          id: '3EB0A1B2C3D4E5F60708090B', chatJid: '5511988887777@s.whatsapp.net', from: '5511988887777', fromMe: false,
          chatType: 'individual', timestamp: 1735700002, pushName: 'Maria Silva',
          content: {
            type: 'image',
            media: {
              id: '3EB0A1B2C3D4E5F60708090B', mimeType: 'image/jpeg', sha256: 'b1946ac92492d2347c6235b4d2611184b1946ac92492d2347c6235b4d2611184',
              caption: 'Our storefront', url: 'https://parley.example/media/ins_01JD7Q4X9M2K8V3T6R5P0N1B2C/3EB0A1B2C3D4E5F60708090B',
            },
          },
        },
      },
    });
  });

  it('uses the channel link as the media URL when there is one', () => {
    const body = format.render(fixtures.events['message-reel-instagram'], fixtures.context) as { data: { message: { content: { media: { url: string } } } } };
    assert.equal(body.data.message.content.media.url, 'https://www.instagram.example/reel/C9xYz');
  });

  it('registers itself as a webhook format', async () => {
    assert.deepEqual(plugin.provides, { formats: ['native'] });
    const registered = await registerPlugin(plugin, {});
    assert.deepEqual(registered.formats.map((f) => f.name), ['native']);
  });
});
