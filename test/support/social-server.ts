import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, it } from 'node:test';
import type { Clock } from '@parley/core';
import { startMockGraph, type MockGraph } from '@parley/meta-graph/testing';
import type { ParleyConfig } from '@parley/server';
import { AnswerRecorder } from './answer-recorder.js';
import { metaFixture, startImageServer, type ImageServer, type MetaChannel } from './meta-channels.js';
import { startTestServer, type AdminWebhookSettings, type TestServer } from './test-server.js';

// The accounts and senders of the channel plugins' fixtures (Meta's documented webhook shapes).
export const IG_ACCOUNT = '17841405822304914';
export const IG_USER = '6543210987654321';
export const IG_TOKEN = 'IGQWRe2eaccesstoken0123456789';
export const IG_SECRET = 'instagram-app-secret-0123456789ab';
export const IG_VERIFY = 'verify-instagram-e2e-0001';
export const FB_PAGE = '106123456789012';
export const FB_USER = '7012345678901234';
export const FB_TOKEN = 'EAAMe2epagetoken0123456789';
export const FB_SECRET = 'messenger-app-secret-abcdef012345';
export const FB_VERIFY = 'verify-messenger-e2e-0001';
export const SENT_MID = 'aWdfZAG1faXRlbToxOklHTWVzc2FnZAUlEOjE3ODQxNDA1ODIyMzA0OTE0OjM0MDI4MjM2NjsentAZDZD';
export const FB_SENT_MID = 'm_AG5Hz2Uq7tuwNEhXfYYKj8mJEM_QPpz5jdCK48PnKAjSdjfipqxqMvK8ma6AC8fplwlqLP_5cgXIbu7I3rBNsent';

export const IG_LINK = { accessToken: IG_TOKEN, appSecret: IG_SECRET, verifyToken: IG_VERIFY, accountId: IG_ACCOUNT };
export const FB_LINK = { accessToken: FB_TOKEN, appSecret: FB_SECRET, verifyToken: FB_VERIFY, accountId: FB_PAGE };

/**
 * A test server on `clock` with SQLite storage, the sandbox (scanned by the test), native webhooks and
 * the Instagram channel against `graph`, plus `config`.
 */
export function startClockedInstagramServer(clock: Clock, graph: MockGraph, config: Partial<ParleyConfig>): Promise<TestServer> {
  return startTestServer({
    clock,
    plugins: [
      { package: '@parley/storage-sqlite' },
      { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } },
      { package: '@parley/webhook-native' },
      { package: '@parley/channel-instagram', options: { graphBaseUrl: graph.url, profileLookup: false } },
    ],
    config,
  });
}

/** The `mid` of a fixture's first messaging event. */
export function midOf(channel: MetaChannel, name: string): string {
  return JSON.parse(metaFixture(channel, name).toString('utf8')).entry[0].messaging[0].message.mid;
}

/** True when an answer carries none of the given secrets (raw bytes, so no member escapes the check). */
export function carriesNone(raw: Buffer, secrets: string[]): boolean {
  const text = raw.toString('utf8');
  return secrets.every((secret) => !text.includes(secret));
}

/**
 * A server (storage `storage`) with the sandbox, both webhook formats and both Meta channels over two
 * mock Graph APIs, plus an image server, and the calls the social tests share. Constructed inside a
 * `describe`: it registers that suite's hooks (start and stop, reset between tests, and deleting each
 * test's instances, since webhooks reach every instance linked to an account). The calls are arrow
 * members, so a suite can destructure them.
 */
export class SocialServer {
  t!: TestServer;
  recorder!: AnswerRecorder;
  igGraph!: MockGraph;
  fbGraph!: MockGraph;
  images!: ImageServer;
  private readonly created: string[] = [];

  constructor(storage: 'memory' | 'sqlite') {
    before(async () => {
      this.igGraph = await startMockGraph();
      this.fbGraph = await startMockGraph();
      this.images = await startImageServer();
      this.t = await startTestServer({
        plugins: [
          { package: `@parley/storage-${storage}` },
          { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } },
          { package: '@parley/webhook-native' },
          { package: '@parley/webhook-meta' },
          { package: '@parley/channel-instagram', options: { graphBaseUrl: this.igGraph.url, profileLookup: false } },
          { package: '@parley/channel-messenger', options: { graphBaseUrl: this.fbGraph.url } },
        ],
        captureLogs: true,
      });
      this.recorder = new AnswerRecorder(this.t);
    });
    after(async () => {
      await this.t.stop();
      await this.igGraph.close();
      await this.fbGraph.close();
      await this.images.close();
    });
    beforeEach(() => {
      this.igGraph.reset();
      this.fbGraph.reset();
      this.images.hits.length = 0;
    });
    afterEach(async () => {
      for (const key of this.created.splice(0)) assert.equal((await this.t.client().call('adminDeleteInstance', { params: { key } })).status, 200);
    });
  }

  /** Creates an instance (with `webhook` settings if given) the suite deletes after the test. */
  instance = async (name: string, webhook?: AdminWebhookSettings): Promise<{ id: string; key: string }> => {
    const made = await this.t.createInstance({ name, ...(webhook ? { webhook } : {}) });
    this.created.push(made.key);
    return made;
  };

  linkInstagram = async (key: string): Promise<void> => {
    this.igGraph.on('GET', `/v26.0/${IG_ACCOUNT}`, { status: 200, body: { id: IG_ACCOUNT, username: 'parley.shop', name: 'Parley Shop' } });
    const res = await this.link(key, 'instagram', IG_LINK);
    assert.equal(res.status, 200, JSON.stringify(res));
    this.igGraph.reset();
  };

  linkMessenger = async (key: string): Promise<void> => {
    this.fbGraph.on('GET', '/v26.0/me', { status: 200, body: { id: FB_PAGE, name: 'Parley Shop' } });
    const res = await this.link(key, 'messenger', FB_LINK);
    assert.equal(res.status, 200, JSON.stringify(res));
    this.fbGraph.reset();
  };

  /** Links a channel through the recording client (its raw answer is then `recorder.last`). */
  link = (key: string, channel: MetaChannel, body: typeof IG_LINK) =>
    this.recorder.instance(key).call('linkChannel', { params: { channel }, body });
  linksOf = (key: string) => this.t.client(key).call('listLinks');
  chatsOf = (key: string) => this.t.client(key).call('listChats');
  adminView = (key: string) => this.t.client().call('adminGetInstance', { params: { key } });

  messagesOf = async (key: string, chat: string) => {
    const res = await this.t.client(key).call('listChatMessages', { params: { jid: chat } });
    assert.equal(res.status, 200, JSON.stringify(res));
    return res;
  };

  /**
   * Messages stored for a chat, read from storage: where a test stores nothing there is no chat, and
   * the API has no chat of that user id to list.
   */
  storedMessageCount = async (instanceId: string, chat: string): Promise<number> =>
    (await this.t.server.context.storage.messages.listByChat(instanceId, chat, { page: 1, limit: 100 })).total;

  /**
   * The last test of a suite (node:test runs a suite's tests in order): the links, refusals, webhooks
   * and sends of the tests above were all logged at debug level by now, and no line carries a secret.
   */
  itNeverLogsSecrets(): void {
    it('never logs an access token, app secret or verify token', () => {
      assert.ok(this.t.logs.length > 0);
      const leaks = this.t.logs.filter((line) => [IG_TOKEN, IG_SECRET, IG_VERIFY, FB_TOKEN, FB_SECRET, FB_VERIFY].some((secret) => line.includes(secret)));
      assert.deepStrictEqual(leaks, []);
    });
  }
}
