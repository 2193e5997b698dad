import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { SocialLink } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import { fixtureReader, receivedFrom, signatureHeader, testInstance, testLink, useInboundHarness, useMockGraph } from '@parley/meta-graph/testing';
import { createInstagramDriver } from '../src/index.js';

const ACCOUNT = '17841405822304914';
const USER = '6543210987654321';
const CDN = 'https://lookaside.fbsbx.com/ig_messaging_cdn/?asset_id=';

const fixture = fixtureReader(import.meta.url);

/** The `mid` (or read/reaction mid) of a fixture's first event, so expectations name the ids Meta sent. */
function midOf(name: string): string {
  const event = JSON.parse(fixture(name).toString('utf8')).entry[0].messaging[0];
  return (event.message ?? event.read ?? event.reaction).mid;
}

function link(overrides: Partial<SocialLink> = {}): SocialLink {
  return testLink('instagram', ACCOUNT, { username: 'parley.shop', ...overrides });
}

/** The instance each test wires: one linking ACCOUNT, over fresh memory storage, profile lookups off. */
const wiring = {
  testFileUrl: import.meta.url, createDriver: () => createInstagramDriver({ profileLookup: false }), storage: () => new MemoryStorage(),
  instanceId: 'ins_ig', link: link(),
};

/** A received message from USER with the given id, timestamp, content and record member. */
const received = receivedFrom('instagram', USER);

describe('instagram webhook: inbound mapping', () => {
  const inbound = useInboundHarness(wiring);
  const { deliver } = inbound;

  it('maps a text message (message-text-instagram)', async () => {
    const mid = midOf('ig-text');
    assert.deepStrictEqual(await deliver('ig-text'), [
      received(mid, 1718000000, { type: 'text', body: 'Hi! Is the blue jacket still available?' }, {
        extendedTextMessage: { text: 'Hi! Is the blue jacket still available?' },
      }),
    ]);
    assert.deepStrictEqual(inbound.harness.emitters, ['ins_ig']);
  });

  it('maps an image with the CDN link (message-image-instagram)', async () => {
    const mid = midOf('ig-image');
    const url = `${CDN}17902139405000001&signature=AbxQ3kZ-image`;
    assert.deepStrictEqual(await deliver('ig-image'), [
      received(mid, 1718000001, { type: 'image', media: { id: mid, mimeType: 'image/jpeg', sha256: '', link: url } }, {
        imageMessage: { url, mimetype: 'image/jpeg' },
      }),
    ]);
  });

  it('maps a shared reel to a video whose link is the reel (message-reel-instagram)', async () => {
    const mid = midOf('ig-reel');
    const url = `${CDN}18034567890123456&signature=AbxQ3kZ-reel`;
    assert.deepStrictEqual(await deliver('ig-reel'), [
      received(mid, 1718000002, {
        type: 'video', media: { id: '18034567890123456', mimeType: 'video/mp4', sha256: '', link: url, caption: 'Summer collection drop' },
      }, { videoMessage: { url, mimetype: 'video/mp4', caption: 'Summer collection drop' } }),
    ]);
  });

  it('maps a story reply to text with context.story (message-story-reply-instagram)', async () => {
    const mid = midOf('ig-story-reply');
    const story = { url: `${CDN}17951234567890123&signature=AbxQ3kZ-story`, id: '17951234567890123' };
    assert.deepStrictEqual(await deliver('ig-story-reply'), [
      received(mid, 1718000003, { type: 'text', body: 'Where can I buy this?' }, {
        extendedTextMessage: { text: 'Where can I buy this?', contextInfo: { story } },
      }, { context: { story } }),
    ]);
  });

  it('maps a story mention to an image (message-story-mention-instagram)', async () => {
    const mid = midOf('ig-story-mention');
    const url = `${CDN}17961234567890124&signature=AbxQ3kZ-mention`;
    assert.deepStrictEqual(await deliver('ig-story-mention'), [
      received(mid, 1718000004, { type: 'image', media: { id: mid, mimeType: 'image/jpeg', sha256: '', link: url } }, {
        imageMessage: { url, mimetype: 'image/jpeg' },
      }),
    ]);
  });

  it('maps is_unsupported to unsupported (message-unsupported-instagram)', async () => {
    await deliver('ig-unsupported');
    assert.deepStrictEqual(inbound.harness.emitted, [
      received(midOf('ig-unsupported'), 1718000005, { type: 'unsupported', typeName: 'unsupported' }, { unsupportedMessage: { type: 'unsupported' } }),
    ]);
  });

  it('maps a shared post (share, and Meta\'s newer share + ig_post pair) to one image with the post\'s link and caption', async () => {
    const url = `${CDN}18139494541428835&signature=AbxQ3kZ-post`;
    const post = { id: '18139494541428835', mimeType: 'image/jpeg', sha256: '', link: url, caption: 'Linen shirts are back \u2600' };
    const record = { imageMessage: { url, mimetype: 'image/jpeg', caption: 'Linen shirts are back \u2600' } };
    await deliver('ig-share');
    await deliver('ig-post');
    assert.deepStrictEqual(inbound.harness.emitted, [
      received(midOf('ig-share'), 1718000005, { type: 'image', media: post }, record),
      // The share twin of the ig_post attachment is left out: one post, one event.
      received(midOf('ig-post'), 1718000008, { type: 'image', media: post }, record),
    ]);
  });

  it('maps an edited message to a text that edits the original (message-edit), once per redelivery', async () => {
    const original = midOf('ig-text');
    const edited = { type: 'text' as const, body: 'Hi! Is the blue jacket still available in M?' };
    await deliver('ig-edit');
    await deliver('ig-edit');
    const event = received(`${original}-edit-1`, 1718000009, edited, { extendedTextMessage: { text: edited.body } }, { edit: { originalMessageId: original } });
    // The record keeps the original id, so the stored message shows the new text.
    if (event.type === 'message') event.message.record.key.id = original;
    assert.deepStrictEqual(inbound.harness.emitted, [event]);
  });

  it('maps messaging_seen to a read status with the message id (status-read-instagram)', async () => {
    assert.deepStrictEqual(await deliver('ig-read'), [
      { type: 'message.status', messageId: midOf('ig-read'), chatJid: USER, recipientId: USER, status: 'read', timestamp: 1718000006 },
    ]);
  });

  it('maps an echo of the account\'s own message to a from-me message in the user\'s chat', async () => {
    const mid = midOf('ig-echo');
    assert.deepStrictEqual(await deliver('ig-echo'), [{
      type: 'message',
      message: {
        id: mid, chatJid: USER, from: ACCOUNT, fromUserId: ACCOUNT, fromMe: true, timestamp: 1718000007, chatType: 'individual',
        content: { type: 'text', body: 'Yes, it is! Which size?' },
        record: {
          key: { remoteJid: USER, fromMe: true, id: mid }, message: { extendedTextMessage: { text: 'Yes, it is! Which size?' } },
          messageTimestamp: '1718000007', status: 'SERVER_ACK', provider: 'instagram',
        },
      },
    }]);
  });

  it('maps a reply to a message to context.id', async () => {
    const quoted = midOf('ig-echo');
    assert.deepStrictEqual(await deliver('ig-reply'), [
      received(midOf('ig-reply'), 1718000008, { type: 'text', body: 'Medium, please' }, {
        extendedTextMessage: { text: 'Medium, please', contextInfo: { stanzaId: quoted } },
      }, { context: { id: quoted } }),
    ]);
  });

  it('maps a reaction (escaped unicode in the signed body) to a reaction message', async () => {
    const target = midOf('ig-reaction');
    const id = `${target}-reaction-1718000009000`;
    assert.deepStrictEqual(await deliver('ig-reaction'), [
      received(id, 1718000009, { type: 'reaction', messageId: target, emoji: '❤️' }, {
        reactionMessage: { key: { remoteJid: USER, id: target }, text: '❤️' },
      }),
    ]);
  });

  it('maps a deleted message to message.delete', async () => {
    assert.deepStrictEqual(await deliver('ig-deleted'), [
      { type: 'message.delete', chatJid: USER, messageIds: [midOf('ig-deleted')] },
    ]);
  });
});

describe('instagram webhook: signatures, verification, redelivery', () => {
  const inbound = useInboundHarness(wiring);

  // A badly signed notification is answered as one naming an account no instance links, so the answer
  // does not tell anyone which account ids are linked.
  const DROPPED = { status: 200, body: { received: 0 } };

  it('drops a signature made with another secret: the answer of an unlinked account, nothing emitted', async () => {
    const body = fixture('ig-text');
    const unlinked = Buffer.from(body.toString('utf8').replaceAll(ACCOUNT, '17841400000000999'));
    assert.deepStrictEqual(await inbound.harness.notify(unlinked, inbound.signed(unlinked, 'some-other-app-secret')), DROPPED);
    assert.deepStrictEqual(await inbound.harness.notify(body, inbound.signed(body, 'some-other-app-secret')), DROPPED);
    assert.deepStrictEqual(inbound.harness.emitted, []);
  });

  it('drops a body changed after signing, emitting nothing', async () => {
    const body = fixture('ig-text');
    const tampered = Buffer.from(body.toString('utf8').replace('blue jacket', 'red jacket'));
    assert.deepStrictEqual(await inbound.harness.notify(tampered, inbound.signed(body)), DROPPED);
    assert.deepStrictEqual(inbound.harness.emitted, []);
  });

  it('answers 401 without a signature and drops a malformed one, emitting nothing', async () => {
    const body = fixture('ig-text');
    assert.deepStrictEqual(await inbound.harness.notify(body, { 'content-type': 'application/json' }), {
      status: 401, body: { status: 401, error: { code: 'unauthorized', message: 'missing x-hub-signature-256 header' } },
    });
    assert.deepStrictEqual(await inbound.harness.notify(body, { 'x-hub-signature-256': 'sha1=abc' }), DROPPED);
    assert.deepStrictEqual(await inbound.harness.notify(body, { 'X-Hub-Signature-256': signatureHeader(body, 'wrong') }), DROPPED);
    assert.deepStrictEqual(inbound.harness.emitted, []);
  });

  it('answers 400 for a body of another object type', async () => {
    const body = Buffer.from(JSON.stringify({ object: 'page', entry: [{ id: ACCOUNT, time: 1, messaging: [] }] }));
    assert.equal((await inbound.harness.notify(body, inbound.signed(body))).status, 400);
    assert.deepStrictEqual(inbound.harness.emitted, []);
  });

  it('skips entries of accounts no instance links, answering 200', async () => {
    const body = Buffer.from(fixture('ig-text').toString('utf8').replaceAll(ACCOUNT, '17841400000000999'));
    assert.deepStrictEqual(await inbound.harness.notify(body, inbound.signed(body)), { status: 200, body: { received: 0 } });
    assert.deepStrictEqual(inbound.harness.emitted, []);
  });

  it('answers the challenge as text/plain for the right verify token', async () => {
    const answer = await inbound.harness.verify({ 'hub.mode': 'subscribe', 'hub.verify_token': 'verify-token-instagram-1234', 'hub.challenge': '1158201444' });
    assert.deepStrictEqual(answer, { status: 200, body: '1158201444', contentType: 'text/plain' });
  });

  it('answers 403 for a wrong verify token, a wrong mode or a missing challenge', async () => {
    const queries: Record<string, string>[] = [
      { 'hub.mode': 'subscribe', 'hub.verify_token': 'verify-token-instagram-123', 'hub.challenge': '1158201444' },
      { 'hub.mode': 'unsubscribe', 'hub.verify_token': 'verify-token-instagram-1234', 'hub.challenge': '1158201444' },
      { 'hub.mode': 'subscribe', 'hub.verify_token': 'verify-token-instagram-1234' },
    ];
    for (const query of queries) {
      assert.deepStrictEqual(await inbound.harness.verify(query), { status: 403, body: { status: 403, error: { code: 'forbidden', message: 'verification failed' } } });
    }
  });

  it('emits a redelivered message once, also after a restart on the same inbound.storage', async () => {
    const body = fixture('ig-text');
    assert.deepStrictEqual(await inbound.harness.notify(body, inbound.signed(body)), { status: 200, body: { received: 1 } });
    assert.deepStrictEqual(await inbound.harness.notify(body, inbound.signed(body)), { status: 200, body: { received: 0 } });
    assert.equal(inbound.harness.emitted.length, 1);

    const restarted = inbound.rewire();
    assert.deepStrictEqual(await restarted.notify(body, inbound.signed(body)), { status: 200, body: { received: 0 } });
    assert.deepStrictEqual(restarted.emitted, []);
  });

  it('answers Meta only once the events are stored and queued, and remembers them for dedup only then', async () => {
    const body = fixture('ig-text');
    const release = inbound.harness.holdSettled();
    let answered = false;
    const answer = inbound.harness.notify(body, inbound.signed(body)).then((result) => {
      answered = true;
      return result;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(inbound.harness.emitted.length, 1);
    assert.equal(answered, false, 'no 200 before the server has stored and queued the event');
    // The process dies here; Meta, without its 200, delivers again to the next one: not dropped as a duplicate.
    const restarted = inbound.rewire();
    assert.deepStrictEqual(await restarted.notify(body, inbound.signed(body)), { status: 200, body: { received: 1 } });
    assert.equal(restarted.emitted.length, 1);
    release();
    assert.deepStrictEqual(await answer, { status: 200, body: { received: 1 } });
  });

  it('emits two racing deliveries of one message once', async () => {
    const body = fixture('ig-image');
    const answers = await Promise.all([inbound.harness.notify(body, inbound.signed(body)), inbound.harness.notify(body, inbound.signed(body))]);
    assert.deepStrictEqual(answers.map((answer) => answer.body).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))), [
      { received: 0 }, { received: 1 },
    ]);
    assert.equal(inbound.harness.emitted.length, 1);
  });

  it('routes each entry to the instance linking its account, each verified with its app secret', async () => {
    const other = '17841400000000222';
    const twoAccounts = testInstance('ins_other', [link({ accountId: other, verifyToken: 'verify-token-other-00000' })]);
    const both = inbound.rewire([testInstance('ins_ig', [link()]), twoAccounts]);
    const parsed = JSON.parse(fixture('ig-text').toString('utf8'));
    const second = JSON.parse(JSON.stringify(parsed.entry[0]).replaceAll(ACCOUNT, other).replace(/"mid":"[^"]+"/, '"mid":"mid-of-other-account"'));
    const body = Buffer.from(JSON.stringify({ object: 'instagram', entry: [parsed.entry[0], second] }));
    assert.deepStrictEqual(await both.notify(body, inbound.signed(body)), { status: 200, body: { received: 2 } });
    assert.deepStrictEqual(both.emitters, ['ins_ig', 'ins_other']);
    assert.deepStrictEqual(both.emitted.map((payload) => payload.type === 'message' && payload.message.id), [midOf('ig-text'), 'mid-of-other-account']);
  });
});

describe('instagram webhook: sender profiles', () => {
  const graph = useMockGraph();
  const inbound = useInboundHarness({ ...wiring, createDriver: () => createInstagramDriver({ graphBaseUrl: graph.url }) });

  it('looks the sender up after answering and adds name, username and picture to later messages', async () => {
    graph.on('GET', `/v26.0/${USER}`, {
      status: 200, body: { name: 'Ana Souza', username: 'ana.souza', profile_pic: 'https://scontent.cdninstagram.com/v/ana.jpg', id: USER },
    });
    const { harness } = inbound;
    const first = fixture('ig-text');
    assert.deepStrictEqual(await harness.notify(first, inbound.signed(first)), { status: 200, body: { received: 1 } });
    assert.equal(graph.requests.length, 0, 'no Graph call before the webhook is answered');
    await harness.stop();
    const [lookup] = graph.requests;
    assert.equal(graph.requests.length, 1);
    assert.equal(lookup!.headers.authorization, 'Bearer EAAGtestaccesstoken0000000000');
    assert.deepStrictEqual(lookup!.query.fields, 'name,username,profile_pic');

    const again = inbound.rewire();
    const second = fixture('ig-reply');
    await again.notify(second, inbound.signed(second));
    await again.stop();
    const [withoutProfile] = harness.emitted;
    const [withProfile] = again.emitted;
    assert.equal(withoutProfile!.type === 'message' && withoutProfile.message.username, undefined);
    assert.ok(withProfile!.type === 'message');
    assert.deepStrictEqual(
      { pushName: withProfile.message.pushName, username: withProfile.message.username, picture: withProfile.message.picture, recordName: withProfile.message.record.pushName },
      { pushName: 'Ana Souza', username: 'ana.souza', picture: 'https://scontent.cdninstagram.com/v/ana.jpg', recordName: 'Ana Souza' },
    );
    assert.equal(graph.requests.length, 1, 'a fresh profile is not looked up again');
  });

  it('stores a failed lookup without logging secrets, and answers without a profile', async () => {
    graph.on('GET', `/v26.0/${USER}`, {
      status: 400, body: { error: { message: 'Error validating access token: Session has expired', type: 'OAuthException', code: 190 } },
    });
    const { harness } = inbound;
    const body = fixture('ig-text');
    await harness.notify(body, inbound.signed(body));
    await harness.stop();
    assert.equal(graph.requests.length, 1);
    assert.equal(harness.emitted.length, 1);
    const logged = JSON.stringify(harness.logged);
    assert.match(logged, /sender profile lookup failed/);
    for (const secret of [link().accessToken, link().appSecret, link().verifyToken]) assert.ok(!logged.includes(secret), 'no secret in logs');
  });
});
