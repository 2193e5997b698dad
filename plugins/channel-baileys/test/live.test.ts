import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChannelEventPayload } from '@parley/core';
import { MemoryStorage } from '@parley/storage-memory';
import QRCode from 'qrcode';
import { createBaileysDriver } from '../src/index.js';
import { instanceRecord, INSTANCE_ID, quietLogger } from './harness.js';

const WAIT_MS = Number(process.env.PARLEY_LIVE_WAIT_MS ?? 120_000);

/**
 * Opt-in: pairs a real WhatsApp account. Run with PARLEY_LIVE_WHATSAPP=1, scan the QR printed to the
 * console within PARLEY_LIVE_WAIT_MS (default 120 s). It never logs out; the session lives only in memory.
 */
describe('live WhatsApp connection (PARLEY_LIVE_WHATSAPP=1)', () => {
  it('connects by QR code', { timeout: WAIT_MS + 30_000 }, async (t) => {
    if (process.env.PARLEY_LIVE_WHATSAPP !== '1') {
      console.warn('live WhatsApp test skipped: set PARLEY_LIVE_WHATSAPP=1 to pair a real account');
      t.skip('PARLEY_LIVE_WHATSAPP is not 1');
      return;
    }
    const storage = new MemoryStorage();
    await storage.init();
    await storage.instances.create(instanceRecord());
    const events: ChannelEventPayload[] = [];
    let opened: () => void = () => {};
    const open = new Promise<void>((resolve) => { opened = resolve; });
    const adapter = await createBaileysDriver().create({
      instanceId: INSTANCE_ID,
      instance: async () => (await storage.instances.get(INSTANCE_ID))!,
      storage,
      logger: quietLogger(),
      emit: (event) => {
        events.push(event);
        if (event.type === 'qrcode') void QRCode.toString(event.qr, { type: 'terminal', small: true }).then((art) => console.log(art));
        if (event.type === 'connection' && event.status === 'open') opened();
      },
    });
    try {
      const first = await adapter.capabilities.connection!.connect();
      if (!first.phoneConnected) console.log('scan this QR code with WhatsApp › Linked devices');
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([open, new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`no connection within ${WAIT_MS} ms`)), WAIT_MS); })]);
      clearTimeout(timer);
      const state = adapter.capabilities.connection!.state();
      assert.equal(state.phoneConnected, true);
      assert.match(state.user!.id, /@s\.whatsapp\.net$/);
      console.log('connected as', state.user);
    } finally {
      await adapter.stop();
    }
  });
});
