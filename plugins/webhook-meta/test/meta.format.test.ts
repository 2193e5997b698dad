import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import type { ChannelEvent } from '@parley/core';
import { describeWebhookFormatConformance, INTERNAL_EVENT_NAMES, registerPlugin, webhookEventFixtures } from '@parley/testkit';
import plugin, { MAIN_ENTRY_PREFIX, MetaFormat, type MetaWebhookPayload } from '../src/index.js';

const fixtures = webhookEventFixtures();
const format = new MetaFormat();

describeWebhookFormatConformance(format, { ...fixtures, unsupported: INTERNAL_EVENT_NAMES });

describe('meta format', () => {
  const render = (event: ChannelEvent, context = fixtures.context) => format.render(event, context) as MetaWebhookPayload;

  it('uses the render context service tag as object', () => {
    assert.equal(render(fixtures.events['message-text'], { ...fixtures.context, serviceTag: 'acme' }).object, 'acme');
  });

  it('encodes the public instance id in the main channel entry id', () => {
    const id = render(fixtures.events['presence']).entry[0]!.id;
    assert.ok(id.startsWith(MAIN_ENTRY_PREFIX));
    assert.equal(Buffer.from(id.slice(MAIN_ENTRY_PREFIX.length), 'base64url').toString('utf8'), fixtures.instance.id);
  });

  it('takes the provider from the event and tells main from linked channels by the main driver\'s channel, for any channel id', () => {
    // A plugin channel linked beside the main channel: official, keyed by its linked account id.
    const relayLink = { channel: 'relay-net', accountId: '4242', accessToken: 't', appSecret: 's', verifyToken: 'v', linkedAt: 1 };
    const instance = { ...fixtures.instance, links: { ...fixtures.instance.links, 'relay-net': relayLink } };
    const relayEvent = { ...fixtures.events['message-text-instagram'], provider: 'relay-net' } as ChannelEvent;
    const social = render(relayEvent, { ...fixtures.context, instance });
    assert.deepEqual([social.provider, social.official, social.entry[0]!.id], ['relay-net', true, '4242']);
    assert.equal(social.entry[0]!.changes[0]!.value.messaging_product, 'relay-net');
    // A plugin main channel: the instance's main driver drives it, so it is rendered like WhatsApp.
    const pigeonEvent = { ...fixtures.events['presence'], provider: 'carrier-pigeon' } as ChannelEvent;
    const main = render(pigeonEvent, { ...fixtures.context, mainChannel: 'carrier-pigeon' });
    assert.deepEqual([main.provider, main.official], ['carrier-pigeon', false]);
    assert.ok(main.entry[0]!.id.startsWith(MAIN_ENTRY_PREFIX));
  });

  it('sends an empty display_phone_number while the main channel is not connected', () => {
    const instance = { ...fixtures.instance, user: null };
    const body = render(fixtures.events['qrcode'], { ...fixtures.context, instance });
    assert.deepEqual(body.entry[0]!.changes[0]!.value.metadata, { display_phone_number: '', phone_number_id: fixtures.instance.id });
  });

  it('signs the exact body as X-Hub-Signature-256 keyed by the secret text', () => {
    const body = JSON.stringify(render(fixtures.events['message-text']));
    const expected = createHmac('sha256', fixtures.instance.webhookSecret).update(Buffer.from(body, 'utf8')).digest('hex');
    assert.deepEqual(format.signatureHeaders(body, fixtures.instance.webhookSecret), { 'X-Hub-Signature-256': `sha256=${expected}` });
  });

  it('registers itself as a webhook format', async () => {
    assert.deepEqual(plugin.provides, { formats: ['meta', 'cloud-api'] });
    const registered = await registerPlugin(plugin, {});
    assert.deepEqual(registered.formats.map((f) => f.name), ['meta', 'cloud-api']);
  });
});
