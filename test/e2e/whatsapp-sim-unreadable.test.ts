import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { RunningSimulator } from '@parley/whatsapp-sim';
import { SAMPLES } from '../support/media-server.js';
import { nativeWebhooks, useWebhookReceivers, type NativeBody } from '../support/simulated-webhooks.js';
import { at } from '../support/webhook-receivers.js';
import { useSimulatedWhatsApp } from '../support/whatsapp-sim.js';
import type { TestServer } from '../support/test-server.js';

/** How long Parley waits for a resend before it reports a message that never decrypted (the plugin option `undecryptableGraceMs`). */
const CIPHERTEXT_GRACE_MS = 5_000;

/**
 * Issue 25 defect 8 on Baileys' real socket against the simulator, through webhooks in both formats on real
 * HTTP receivers: a view-once image (WhatsApp gives its companions `<unavailable type="view_once">`) and a
 * message whose copies never decrypt (Baileys asks for retries; the phone resends as broken up to its limit;
 * a CIPHERTEXT stub remains) each give exactly one `message-unsupported` (131051, details `view_once` /
 * `ciphertext`), and nothing else; an album's parent (`albumMessage`) gives no event, its images one each.
 */
describe('WhatsApp messages Parley cannot read, on the simulator', () => {
  let sim: RunningSimulator;
  let t: TestServer;
  const hooks = useWebhookReceivers();
  const shop = '5511987658301';
  const friend = '5511987658302';
  const path = 'unreadable';
  const env = useSimulatedWhatsApp({}, { undecryptableGraceMs: CIPHERTEXT_GRACE_MS });
  before(async () => {
    ({ sim, t } = env);
    for (const [number, pushName] of [[shop, 'Loja'], [friend, 'Cliente']] as const) sim.simulator.createAccount({ number, pushName });
    await env.linkByQr(shop, 'unreadable', (instance) => nativeWebhooks(instance, hooks.receivers(), path, 'both'));
  });

  const bodies = () => at(hooks.receivers().webhookMessage, path).map((r) => r.json as NativeBody & { object?: string; entry?: any[] });
  /** Native message events of `id`. */
  const native = (id: string) => bodies().filter((b) => b.type === 'message' && b.data.message.id === id);
  /** Meta-format messages of `id`. */
  const meta = (id: string) => bodies().flatMap((b) => (b.object === 'parley' ? b.entry!.flatMap((e) => e.changes.flatMap((c: any) => c.value.messages ?? [])) : []))
    .filter((m: { id: string }) => m.id === id);
  /** Waits for the unsupported message `id` in both formats, then a little longer: it must stay the only one. */
  const reportedOnce = async (id: string, details: string, within: number) => {
    await t.waitFor(() => native(id).length > 0 && meta(id).length > 0, within, `message-unsupported ${details}`);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    assert.deepEqual(native(id).map((b) => [b.data.message.from, b.data.message.fromMe, b.data.message.content]),
      [[friend, false, { type: 'unsupported', typeName: details }]]);
    assert.deepEqual(meta(id).map((m: any) => [m.from, m.type, m.errors]), [[friend, 'unsupported', [{
      code: 131051, title: 'Unsupported message type', message: 'Message type is not currently supported', error_data: { details },
    }]]]);
  };

  it('a view-once image: one message-unsupported with details view_once, at once', { timeout: 60_000 }, async () => {
    const sent = await sim.simulator.sendViewOnce(friend, shop, { kind: 'image', data: SAMPLES.jpeg, mimetype: 'image/jpeg', caption: 'só uma vez' });
    await reportedOnce(sent.id, 'view_once', 20_000);
    // The phone itself opened it; the linked device only heard that it exists.
    assert.equal(sim.simulator.received(shop).find((m) => m.id === sent.id)?.media?.size, SAMPLES.jpeg.length);
  });

  it('a message that never decrypts: Baileys asks for every retry, then one message-unsupported with details ciphertext', { timeout: 120_000 }, async () => {
    const sent = await sim.simulator.sendUndecryptable(friend, shop, 'ilegível');
    await t.waitFor(() => (sim.simulator.sent(friend).find((m) => m.id === sent.id)?.retries?.length ?? 0) >= 5, 30_000, 'Baileys to ask for five retries');
    await reportedOnce(sent.id, 'ciphertext', CIPHERTEXT_GRACE_MS + 30_000);
    assert.equal(sim.simulator.sent(friend).find((m) => m.id === sent.id)!.retries!.length, 5);
  });

  it('an album: its images are messages, its parent (albumMessage) is no event at all', { timeout: 60_000 }, async () => {
    const image = { kind: 'image' as const, data: SAMPLES.jpeg, mimetype: 'image/jpeg' };
    const album = await sim.simulator.sendAlbum(friend, shop, [{ ...image, caption: 'frente' }, { ...image, caption: 'verso' }]);
    const [front, back] = album.images.map((m) => m.id);
    await t.waitFor(() => native(front!).length > 0 && native(back!).length > 0 && meta(back!).length > 0, 20_000, 'both images');
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    assert.deepEqual([front, back].map((id) => native(id!).map((b) => [b.data.message.content.type, b.data.message.content.media.caption])), [[['image', 'frente']], [['image', 'verso']]]);
    assert.deepEqual([native(album.parent.id), meta(album.parent.id)], [[], []]);
  });
});
