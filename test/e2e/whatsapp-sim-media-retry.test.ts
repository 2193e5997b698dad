import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, it } from 'node:test';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import type { TestServer } from '../support/test-server.js';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';

/**
 * Received WhatsApp media whose copy on WhatsApp's media host is gone (the CDN answers 404 after some weeks):
 * GET media asks the instance's phone to upload it again (a media retry request over the real Baileys socket)
 * and answers the bytes from the new path; a phone that no longer has the file answers with the error the docs
 * name (404 media_not_found, or 502 upstream_error when the phone fails otherwise).
 */
describe('received WhatsApp media gone from the media host, on the simulator', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  const env = useSimulatedWhatsApp();
  const [shop, friend] = ['5511987659601', '5511987659602'];
  let instance: { key: string; id: string };

  before(async () => {
    ({ sim, t } = env);
    sim.simulator.createAccount({ number: shop, pushName: 'Loja' });
    sim.simulator.createAccount({ number: friend, pushName: 'Maria Silva' });
    const { api } = await env.linkByQr(shop, 'wa-media-retry');
    instance = { key: api.key, id: (await api.call('getInstance')).instance.id as string };
  });

  /** The friend's phone sends the shop an image of `data`; resolves once the instance has it, with the file's path on the host. */
  async function received(data: Buffer) {
    const sent = await sim.simulator.sendMedia(friend, shop, { kind: 'image', data, mimetype: 'image/jpeg' });
    await t.waitFor(() => t.events.find((e) => e.type === 'message' && e.instance === instance.id && e.message.id === sent.id), 20_000, 'the image');
    const got = sim.simulator.received(shop).find((m) => m.id === sent.id)!;
    return { id: sent.id, path: String((got.message.imageMessage as { directPath: string }).directPath) };
  }

  const media = (id: string, format: 'json' | 'binary' = 'binary') => t.request('GET', `/${instance.key}/message/${id}/media?format=${format}`);

  it('the host dropped the file: GET media answers its bytes after the phone uploaded it again, and keeps the new path', { timeout: 60_000 }, async () => {
    const data = randomBytes(30_000);
    const { id, path } = await received(data);
    sim.simulator.removeMedia(path);
    const res = await media(id);
    assert.deepStrictEqual([res.status, res.headers.get('content-type')], [200, 'image/jpeg'], JSON.stringify(res.body));
    assert.ok(res.raw.equals(data), 'the decrypted bytes');
    const retries = sim.simulator.answeredMediaRetries(shop);
    assert.deepStrictEqual(retries.map((r) => [r.id, r.result]), [[id, 'success']]);
    const renewed = retries[0]!.directPath!.split('?')[0]!;
    // The record comes to hold the new path (written in the instance's event order, after the answer)…
    await t.waitFor(async () => {
      const stored = (await t.request('GET', `/${instance.key}/message/${id}`)).body.data as { message: { imageMessage: { directPath: string } } };
      return stored.message.imageMessage.directPath.split('?')[0] === renewed;
    }, 10_000, 'the renewed path stored');
    // …so a second download goes there, with no second request to the phone.
    const again = await media(id);
    assert.ok(again.status === 200 && again.raw.equals(data));
    assert.equal(sim.simulator.answeredMediaRetries(shop).length, 1);
    assert.equal(sim.simulator.mediaRequests().filter((r) => r.path === renewed).length, 2);
  });

  it('writes the new path in the instance\'s event order (a receipt handled meanwhile keeps its status), the answer not waiting for it', { timeout: 60_000 }, async () => {
    const data = randomBytes(20_000);
    const { id, path } = await received(data);
    sim.simulator.removeMedia(path);
    const storedPath = async () => {
      const record = await t.server.context.storage.messages.get(instance.id, id);
      return String((record!.message as { imageMessage: { directPath: string } }).imageMessage.directPath);
    };
    // The instance's events are still being handled (a task holds its event chain) when the download answers.
    let release!: () => void;
    const held = t.server.context.bus.run(instance.id, () => new Promise<void>((resolve) => (release = resolve)));
    const res = await media(id);
    assert.ok(res.status === 200 && res.raw.equals(data), 'the bytes, without waiting for the events');
    const renewed = sim.simulator.answeredMediaRetries(shop).find((r) => r.id === id)!.directPath!.split('?')[0]!;
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(await storedPath(), path, 'not written before the events published earlier are handled');
    release();
    await held;
    await t.waitFor(async () => (await storedPath()).split('?')[0] === renewed, 10_000, 'the renewed path stored once they are');
  });

  it('an image of the history synced at link time, gone from the host: GET media answers the phone\'s new upload', { timeout: 60_000 }, async () => {
    const older = '5511987659603';
    sim.simulator.createAccount({ number: older, pushName: 'Loja Antiga' });
    const seeded = await sim.simulator.seedHistory(older, { chats: 1, messagesPerChat: 4, mediaEvery: 4 });
    const { api } = await env.linkByQr(older, 'wa-media-retry-history');
    const imageId = seeded.chats[0]!.messageIds.at(-1)!;
    const stored = await t.waitFor(async () => {
      const res = await api.call('getMessage', { params: { messageId: imageId } }).catch(() => undefined);
      return res?.data;
    }, 20_000, 'the history image stored');
    const path = String((stored.message as { imageMessage?: { directPath?: string } }).imageMessage?.directPath);
    sim.simulator.removeMedia(path);
    const res = await t.request('GET', `/${api.key}/message/${imageId}/media`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(res.raw.equals(sim.simulator.receivedMedia(older, imageId).data), 'the file the phone kept');
    assert.deepStrictEqual(sim.simulator.answeredMediaRetries(older).map((r) => [r.id, r.result]), [[imageId, 'success']]);
  });

  it('the phone deleted the file too: 404 media_not_found saying so; a phone failing otherwise: 502 upstream_error', { timeout: 60_000 }, async () => {
    const gone = await received(randomBytes(10_000));
    const broken = await received(randomBytes(10_000));
    for (const { id, path } of [gone, broken]) sim.simulator.removeMedia(path);
    sim.simulator.loseMedia(shop, gone.id);
    sim.simulator.loseMedia(shop, broken.id, 'general_error');

    const notFound = await media(gone.id, 'json');
    assert.deepStrictEqual({ status: notFound.status, error: notFound.body.error }, {
      status: 404,
      error: {
        code: 'media_not_found',
        message: `media of message ${gone.id} is no longer on WhatsApp's media servers and the phone no longer has it (NOT_FOUND)`,
      },
    });
    const failed = await media(broken.id, 'json');
    assert.deepStrictEqual([failed.status, failed.body.error.code, failed.body.error.message],
      [502, 'upstream_error', `WhatsApp refused the media download: the phone could not upload media of message ${broken.id} again (GENERAL_ERROR)`]);
    assert.deepStrictEqual(sim.simulator.answeredMediaRetries(shop).slice(-2).map((r) => [r.id, r.result]), [[gone.id, 'not_found'], [broken.id, 'general_error']]);
  });
});
