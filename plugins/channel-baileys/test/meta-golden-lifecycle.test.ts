import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChannelEventPayload } from '@parley/core';
import type { FakeSocket } from '../src/testing/index.js';
import { connectOpen, createHarness, ME } from './harness.js';
import { golden, goldenWith, QR, QR_IMAGE, render } from './meta-golden-cases.js';

// Spec 6.3 chained for the connection's life cycle, each event on a fresh adapter (see meta-golden-cases.ts).
describe('spec 6.3 chained: Baileys event → adapter mapping → stamped event → meta payload', () => {
  describe('connection life cycle', () => {
    /** The events of a first `connect()` while the new socket answers with `answer`. */
    async function firstConnect(answer: (socket: FakeSocket) => void): Promise<ChannelEventPayload[]> {
      const h = await createHarness({ qrImage: async (qr) => (qr === QR ? QR_IMAGE : 'unexpected QR') });
      try {
        const connecting = h.adapter.capabilities.connection!.connect();
        answer(await h.sockets.next(1));
        await connecting;
        await h.settle();
        return [...h.events];
      } finally {
        await h.adapter.stop();
      }
    }

    it('qrcode: the first QR of a new session', async () => {
      assert.deepStrictEqual((await firstConnect((socket) => socket.showQr(QR))).map((e) => render(e, 43)), [golden('qrcode')]);
    });

    it('connection-open: the phone linked the session', async () => {
      assert.deepStrictEqual((await firstConnect((socket) => socket.open(ME))).map((e) => render(e, 41)), [golden('connection-open')]);
    });

    it('connection-close: WhatsApp closed an open connection; the adapter will reconnect', async () => {
      const h = await createHarness();
      const socket = await connectOpen(h);
      socket.close(428, 'Connection Closed');
      await h.settle();
      // Baileys closes with its own codes (428 connectionClosed), not the fixture's 1004.
      assert.deepStrictEqual(h.events.map((e) => render(e, 42)), [goldenWith('connection-close', (value) => {
        value.connection = { status: 'close', code: 428, reason: 'connectionClosed' };
      })]);
      await h.adapter.stop();
    });
  });
});
