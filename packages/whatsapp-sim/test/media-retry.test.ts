import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { downloadMediaMessage, proto, type WAMessage } from '@whiskeysockets/baileys';
import type { RunningSimulator } from '../src/index.js';
import { controlApi, TestClient, useSimulator, waitFor } from './client.js';

/** The Boom status and message a rejected media retry carries. */
function failure(error: unknown): [number | undefined, string] {
  const boom = error as { output?: { statusCode?: number }; message: string };
  return [boom.output?.statusCode, boom.message];
}

describe('media retry requests: a companion asks its phone to upload media the host dropped', () => {
  let sim: RunningSimulator;
  const call = controlApi(() => sim);
  useSimulator((started) => { sim = started; }, { media: true });

  /** A linked companion of `me` and the images `friend`'s phone sent it, as Baileys received them. */
  async function setUp(me: string, friend: string, count: number) {
    sim.simulator.createAccount({ number: me });
    sim.simulator.createAccount({ number: friend });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(me, qr));
    const images = Array.from({ length: count }, () => randomBytes(4000));
    const sent: Array<{ id: string }> = [];
    for (const data of images) sent.push(await sim.simulator.sendMedia(friend, me, { kind: 'image', data, mimetype: 'image/jpeg' }));
    await waitFor(() => sent.every((s) => client.seen.upserts.some((m) => m.key.id === s.id && m.message)), 'the images');
    const messages = sent.map((s) => client.seen.upserts.find((m) => m.key.id === s.id)!);
    // WhatsApp Web knows its media host from media_conn; Baileys builds the renewed URL from the one it fetched last.
    await client.sock!.refreshMediaConn(false);
    return { client, images, messages };
  }

  const dropFromHost = (message: WAMessage) => sim.simulator.removeMedia(message.message!.imageMessage!.directPath!);

  it('the phone uploads the same encrypted file to a new path and answers SUCCESS: Baileys downloads it again', { timeout: 60_000 }, async () => {
    const [me, friend] = ['5511987658801', '5511987658802'];
    const { client, images, messages } = await setUp(me, friend, 1);
    const message = messages[0]!;
    const oldPath = message.message!.imageMessage!.directPath!;
    const blob = sim.simulator.mediaFile(oldPath)!;
    dropFromHost(message);
    await assert.rejects(downloadMediaMessage(message, 'buffer', {}), (e) => failure(e)[0] === 404);

    const updated = await client.sock!.updateMediaMessage(structuredClone(message));
    const renewed = updated.message!.imageMessage!;
    assert.notEqual(renewed.directPath, oldPath);
    assert.equal(renewed.url, `https://${sim.simulator.mediaHostname}${renewed.directPath}`);
    assert.deepEqual(sim.simulator.mediaFile(renewed.directPath!), blob, 'the same encrypted blob');
    assert.deepEqual(await downloadMediaMessage(updated, 'buffer', {}), images[0]);
    assert.deepEqual(sim.simulator.answeredMediaRetries(me).map(({ id, from, chat, result, directPath }) => ({ id, from, chat, result, directPath })), [
      { id: message.key.id, from: client.sock!.user!.id, chat: `${friend}@s.whatsapp.net`, result: 'success', directPath: renewed.directPath },
    ]);
    assert.deepEqual((await call('GET', `/accounts/${me}/media-retries`)).body.map((r: { result: string }) => r.result), ['success']);
    client.end();
  });

  it('a phone that deleted the file answers NOT_FOUND or GENERAL_ERROR; one that never had the message, <error code="2">', { timeout: 60_000 }, async () => {
    const [me, friend] = ['5511987658811', '5511987658812'];
    const { client, messages } = await setUp(me, friend, 2);
    const [gone, broken] = messages as [WAMessage, WAMessage];
    for (const message of messages) dropFromHost(message);
    assert.equal((await call('DELETE', `/accounts/${me}/messages/received/${gone.key.id}/media`)).status, 204);
    assert.equal((await call('DELETE', `/accounts/${me}/messages/received/${broken.key.id}/media?answer=general_error`)).status, 204);

    const retry = (message: WAMessage) => client.sock!.updateMediaMessage(structuredClone(message)).then(() => assert.fail('re-uploaded'), failure);
    assert.deepEqual(await retry(gone), [404, 'Media re-upload failed by device (NOT_FOUND)']);
    assert.deepEqual(await retry(broken), [418, 'Media re-upload failed by device (GENERAL_ERROR)']);
    const unknown = structuredClone(gone);
    unknown.key.id = '3EB0AAAAAAAAAAAAAAAAAA';
    assert.deepEqual(await retry(unknown), [404, 'Failed to re-upload media (2)']);
    assert.deepEqual(sim.simulator.answeredMediaRetries(me).map((r) => [r.id, r.result, r.directPath]), [
      [gone.key.id, 'not_found', undefined], [broken.key.id, 'general_error', undefined],
    ]);
    assert.equal(proto.MediaRetryNotification.ResultType.NOT_FOUND, 2, 'the code of <error> the phone answers');
    client.end();
  });

  it('the phone keeps what it sent and its history\'s media: a retry for either gets a new upload', { timeout: 60_000 }, async () => {
    const [me, friend] = ['5511987658831', '5511987658832'];
    sim.simulator.createAccount({ number: me });
    sim.simulator.createAccount({ number: friend });
    await sim.simulator.seedHistory(me, { chats: 1, messagesPerChat: 2, mediaEvery: 2 });
    const client = new TestClient(sim.url);
    await client.link((qr) => sim.simulator.scanQr(me, qr));
    await waitFor(() => client.seen.histories.some((h) => h.messages.some((m) => m.message?.imageMessage)), 'the history image');
    const old = client.seen.histories.flatMap((h) => h.messages).find((m) => m.message?.imageMessage)!;
    const data = randomBytes(3000);
    const own = await sim.simulator.sendMedia(me, friend, { kind: 'image', data, mimetype: 'image/jpeg' });
    await waitFor(() => client.seen.upserts.some((m) => m.key.id === own.id && m.message?.imageMessage), 'the phone\'s own image');
    const mine = client.seen.upserts.find((m) => m.key.id === own.id)!;
    assert.equal(mine.key.fromMe, true);
    await client.sock!.refreshMediaConn(false);
    for (const message of [old, mine]) {
      const before = await downloadMediaMessage(message, 'buffer', {});
      dropFromHost(message);
      const updated = await client.sock!.updateMediaMessage(structuredClone(message));
      assert.deepEqual(await downloadMediaMessage(updated, 'buffer', {}), before, message.key.id!);
    }
    assert.deepEqual(sim.simulator.answeredMediaRetries(me).map((r) => r.result), ['success', 'success']);
    client.end();
  });

  it('refuses bad control input with clear JSON errors, and nothing changes', { timeout: 60_000 }, async () => {
    const [me, friend] = ['5511987658821', '5511987658822'];
    const { client, images, messages } = await setUp(me, friend, 1);
    const id = messages[0]!.key.id!;
    const bad = await call('DELETE', `/accounts/${me}/messages/received/${id}/media?answer=maybe`);
    assert.deepEqual([bad.status, bad.body.status, bad.body.error.code, bad.body.error.details.fields], [400, 400, 'validation_failed', [{ field: 'query.answer', message: 'answer must be not_found or general_error' }]]);
    const missing = await call('DELETE', `/accounts/${me}/messages/received/nope/media`);
    assert.deepEqual([missing.status, missing.body.error.code], [404, 'media_not_found']);
    assert.deepEqual(sim.simulator.receivedMedia(me, id).data, images[0], 'the phone still has the file');
    client.end();
  });
});
