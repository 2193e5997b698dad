import { beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  CapabilityNotSupportedError, OutsideWindowError, UpstreamError, ValidationError, requireCapability,
  type ChannelAdapter, type MessagingCapability, type SocialLink,
} from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { createDriverHarness, testInstance, useMockGraph } from '@parley/meta-graph/testing';
import { createMessengerDriver } from '../src/index.js';

const PAGE = '106123456789012';
const USER = '7012345678901234';
const TOKEN = 'EAAMpagetoken000000000000';
const APP_SECRET = 'messenger-app-secret-abcdef012345';
const NOW = 1_718_000_100_000;
const SENT_MID = 'm_AG5Hz2Uq7tuwNEhXfYYKj8mJEM_QPpz5jdCK48PnKAjSdjfipqxqMvK8ma6AC8fplwlqLP_5cgXIbu7I3rBNsent';

const link: SocialLink = {
  channel: 'messenger', accountId: PAGE, accessToken: TOKEN, appSecret: APP_SECRET,
  verifyToken: 'verify-token-messenger-5678', linkedAt: 1_700_000_000_000,
};

describe('messenger link', () => {
  const graph = useMockGraph();

  const input = { accessToken: TOKEN, appSecret: APP_SECRET, verifyToken: 'verify-token-messenger-5678', accountId: PAGE };
  const driver = () => createMessengerDriver({ graphBaseUrl: graph.url, graphVersion: 'v20.0', clock: { now: () => NOW } });

  it('checks that /me of the Page token is the linked Page', async () => {
    graph.on('GET', '/v20.0/me', { status: 200, body: { id: PAGE, name: 'Parley Shop' } });
    assert.deepStrictEqual(await driver().link!(input), { ...link, linkedAt: NOW });
    assert.deepStrictEqual(graph.requests[0]!.query.fields, 'id,name,username');
  });

  it('refuses a token of another Page, naming accountId', async () => {
    graph.on('GET', '/v20.0/me', { status: 200, body: { id: '999000111222333', name: 'Other Page' } });
    await assert.rejects(driver().link!(input), (err: unknown) => err instanceof ValidationError
      && err.message === `accountId ${PAGE} does not match the Messenger account of the access token (999000111222333)`);
  });
});

describe('messenger messaging', () => {
  const graph = useMockGraph();
  let adapter: ChannelAdapter;
  let messaging: MessagingCapability;

  beforeEach(async () => {
    graph.on('POST', '/v26.0/me/messages', { status: 200, body: { recipient_id: USER, message_id: SENT_MID } });
    const storage = new MemoryStorage();
    await storage.init();
    const harness = createDriverHarness(createMessengerDriver({ graphBaseUrl: graph.url, clock: { now: () => NOW } }), storage, [testInstance('ins_fb', [link])]);
    adapter = await harness.adapter('ins_fb');
    messaging = adapter.capabilities.messaging!;
  });

  function sent(): unknown[] {
    return graph.requests.map((request) => request.json ?? request.form);
  }

  it('sends messages with messaging_type RESPONSE', async () => {
    const record = await messaging.send({ to: USER, content: { type: 'text', text: 'We do!' } });
    assert.deepStrictEqual(sent(), [{ recipient: { id: USER }, messaging_type: 'RESPONSE', message: { text: 'We do!' } }]);
    assert.deepStrictEqual(record, {
      key: { remoteJid: USER, fromMe: true, id: SENT_MID }, message: { extendedTextMessage: { text: 'We do!' } },
      messageTimestamp: '1718000100', status: 'PENDING', provider: 'messenger',
    });
  });

  it('sends URL and call buttons as a button template, the number in international format', async () => {
    await messaging.send({
      to: USER,
      content: {
        type: 'button_action', header: { title: 'Support' }, text: 'How can we help?', footer: 'Parley Shop',
        buttons: [{ type: 'cta_url', text: 'FAQ', url: 'https://parley.example/faq' }, { type: 'cta_call', text: 'Call us', phone_number: '55 11 99999-0000' }],
      },
    });
    assert.deepStrictEqual(sent(), [{
      recipient: { id: USER }, messaging_type: 'RESPONSE',
      message: {
        attachment: {
          type: 'template',
          payload: {
            template_type: 'button', text: 'Support\n\nHow can we help?\n\nParley Shop',
            buttons: [{ type: 'web_url', url: 'https://parley.example/faq', title: 'FAQ' }, { type: 'phone_number', title: 'Call us', payload: '+5511999990000' }],
          },
        },
      },
    }]);
  });

  it('refuses copy buttons and more than three buttons before any I/O', async () => {
    await assert.rejects(messaging.send({ to: USER, content: { type: 'button_action', text: 'x', buttons: [{ type: 'cta_copy', text: 'Copy', copy_code: 'A1' }] } }),
      (err: unknown) => err instanceof CapabilityNotSupportedError && err.status === 422);
    const four = Array.from({ length: 4 }, (_, i) => ({ type: 'cta_url' as const, text: `L${i}`, url: `https://parley.example/${i}` }));
    await assert.rejects(messaging.send({ to: USER, content: { type: 'button_action', text: 'x', buttons: four } }),
      (err: unknown) => err instanceof ValidationError && err.message === 'buttons holds at most 3 buttons on Messenger');
    assert.equal(graph.requests.length, 0);
  });

  it('reacts with any emoji (no messaging_type beside a sender action)', async () => {
    await messaging.send({ to: USER, content: { type: 'reaction', emoji: '😂', target: { remoteJid: USER, fromMe: false, id: 'm_target' } } });
    assert.deepStrictEqual(sent(), [{ recipient: { id: USER }, sender_action: 'react', payload: { message_id: 'm_target', reaction: '😂' } }]);
  });

  it('uploads base64 documents without a platform field', async () => {
    graph.on('POST', '/v26.0/me/message_attachments', { status: 200, body: { attachment_id: '2000000000000001' } });
    const data = Buffer.from('%PDF-1.4 test');
    const media = { data, mimetype: 'application/pdf', sha256: createHash('sha256').update(data).digest('hex') };
    const record = await messaging.send({ to: USER, content: { type: 'document', media, fileName: 'invoice.pdf', mimetype: 'application/pdf', caption: 'Your invoice' } });
    assert.deepStrictEqual(sent(), [
      {
        message: JSON.stringify({ attachment: { type: 'file', payload: { is_reusable: true } } }),
        filedata: { fileName: 'invoice.pdf', type: 'application/pdf', data },
      },
      { recipient: { id: USER }, messaging_type: 'RESPONSE', message: { attachment: { type: 'file', payload: { attachment_id: '2000000000000001' } } } },
      { recipient: { id: USER }, messaging_type: 'RESPONSE', message: { text: 'Your invoice' } },
    ]);
    assert.deepStrictEqual(record.message, { documentMessage: { mimetype: 'application/pdf', fileName: 'invoice.pdf', caption: 'Your invoice' } });
  });

  it('answers 422 outside_window, not a permission error, for a message past the 24-hour window (code 10, subcode 2018278)', async () => {
    const refusal = (subcode?: number) => ({
      status: 400, body: { error: { message: '(#10) This message is sent outside of allowed window.', type: 'OAuthException', code: 10, ...(subcode ? { error_subcode: subcode } : {}), fbtrace_id: 'AWin' } },
    });
    graph.on('POST', '/v26.0/me/messages', refusal(2018278));
    await assert.rejects(messaging.send({ to: USER, content: { type: 'text', text: 'Still there?' } }), (err: unknown) => err instanceof OutsideWindowError
      && err.status === 422 && err.code === 'outside_window'
      && err.message.startsWith('Messenger does not deliver messages to this user now: more than 24 hours have passed since the user last wrote')
      && JSON.stringify(err.details) === JSON.stringify({ upstreamCode: 10, subcode: 2018278, fbtraceId: 'AWin', retryable: false }));
    // Code 10 without that subcode is still a missing permission.
    graph.on('POST', '/v26.0/me/messages', refusal());
    await assert.rejects(messaging.send({ to: USER, content: { type: 'text', text: 'Still there?' } }), (err: unknown) => err instanceof UpstreamError
      && (err.details as { kind?: string }).kind === 'permission');
  });

  it('has messaging only: other families answer 422 with a reason', () => {
    assert.deepStrictEqual(Object.keys(adapter.capabilities), ['messaging']);
    assert.throws(() => requireCapability(adapter, 'groups'), (err: unknown) => err instanceof CapabilityNotSupportedError
      && err.message === 'messenger does not support groups: Messenger messaging through the Graph API has direct messages only');
  });
});
