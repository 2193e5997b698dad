import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_MEDIA_LIMITS } from '@parley/core';
import { startTestHost, type TestHost } from '@parley/testkit/host';
import { MockBotApi } from '../src/testing/index.js';
import { telegramPlugins } from './support.js';

const BOT_ID = 7_000_002;
const ADA = { id: 555_002, first_name: 'Ada' };
/** The server's limits of received media in this suite: small enough to cross with a few kilobytes. */
const LIMITS = { ...DEFAULT_MEDIA_LIMITS, maxDownloadBytes: 2048, downloadIdleMs: 300 };

/**
 * docs/plugins.md, "Received media limits": a channel that downloads received attachments keeps to
 * the host's `media` limits. Through the real server: `GET /{key}/message/{id}/media` of documents
 * Ada sent the bot, whose files the mock Bot API serves larger, lying about their size, or stalling.
 */
describe('the Telegram example keeps to the host\'s limits of received media', () => {
  let mock: MockBotApi;
  let host: TestHost;
  let token: string;
  let key: string;
  let date = 1_893_560_000;

  before(async () => {
    mock = await MockBotApi.start();
    token = mock.addBot(BOT_ID, 'parley_limits_bot');
    mock.addChat(ADA.id);
    host = await startTestHost({ plugins: telegramPlugins(mock.url), config: { media: LIMITS } });
    key = (await host.client.call('adminCreateInstance', { body: { channel: 'sandbox', name: 'limits' } })).data.key;
    await host.client.instance(key).call('linkChannel', {
      params: { channel: 'telegram' as never },
      body: { accessToken: token, appSecret: 'tg-secret_limits_0123', verifyToken: 'unused', accountId: String(BOT_ID) } as never,
    });
  });
  after(async () => {
    await host?.stop();
    await mock?.close();
  });

  /** Ada sends the bot a document whose file the mock serves as `addFile` says; answers the server's answer to GET …/media. */
  async function download(fileId: string): Promise<{ status: number; body: Buffer }> {
    const { update } = await mock.userWrites(token, ADA, {
      document: { file_id: fileId, file_unique_id: `u${fileId}`, file_name: `${fileId}.bin`, mime_type: 'application/octet-stream' },
    }, date++);
    const res = await fetch(`${host.url}/${key}/message/${encodeURIComponent(`${ADA.id}_${update.message!.message_id}`)}/media`);
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
  }
  const errorOf = (body: Buffer) => (JSON.parse(body.toString('utf8')) as { error: { code: string; message: string } }).error;

  it('downloads a file within the limit', async () => {
    const bytes = Buffer.alloc(2048, 7);
    mock.addFile('within', bytes);
    const { status, body } = await download('within');
    assert.equal(status, 200);
    assert.deepEqual(body, bytes);
  });

  it('refuses a file Telegram declares larger than media.maxDownloadBytes: 413 media_too_large', async () => {
    mock.addFile('declared-large', Buffer.alloc(4096, 1));
    const { status, body } = await download('declared-large');
    assert.equal(status, 413);
    assert.equal(errorOf(body).code, 'media_too_large');
    assert.equal(errorOf(body).message, 'the received Telegram file is 4096 bytes, over 2048 bytes, the limit of received media (media.maxDownloadBytes)');
  });

  it('stops reading a file that is larger than it was declared: 413 media_too_large', async () => {
    mock.addFile('lying', Buffer.alloc(64 * 1024, 2), { declaredSize: 100 });
    const { status, body } = await download('lying');
    assert.equal(status, 413);
    assert.equal(errorOf(body).code, 'media_too_large');
  });

  it('stops a download that goes silent for media.downloadIdleMs: 504 media_download_timeout', async () => {
    mock.addFile('silent', Buffer.alloc(1000, 3), { stalls: true });
    const { status, body } = await download('silent');
    assert.equal(status, 504);
    assert.equal(errorOf(body).code, 'media_download_timeout');
    assert.match(errorOf(body).message, /nothing arrived for 300 ms.*media\.downloadIdleMs/);
  });
});
