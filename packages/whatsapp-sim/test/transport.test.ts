import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { NOISE_WA_HEADER } from '@whiskeysockets/baileys';
import { WebSocket } from 'ws';
import { startSimulator } from '../src/index.js';
import type { RunningSimulator } from '../src/index.js';

/** Opens a raw WebSocket to the simulator, sends `frames` and resolves when the server closes it. */
async function closedAfter(url: string, frames: Buffer[]): Promise<number> {
  const socket = new WebSocket(url);
  await once(socket, 'open');
  const started = Date.now();
  for (const frame of frames) socket.send(frame);
  await once(socket, 'close');
  return Date.now() - started;
}

const frame = (payload: Buffer) => Buffer.concat([Buffer.from([0, 0, payload.length]), payload]);

describe('transport: what an unauthenticated client can make the server hold', () => {
  let sim: RunningSimulator;
  before(async () => {
    sim = await startSimulator({ handshakeTimeoutMs: 300 });
  });
  after(() => sim.stop());

  it('drops a client that sends a wrong intro header', async () => {
    await closedAfter(sim.url, [Buffer.from('GET / HTTP/1.1\r\n\r\n')]);
  });

  it('drops a client whose hello is not a handshake message', async () => {
    await closedAfter(sim.url, [Buffer.concat([NOISE_WA_HEADER, frame(Buffer.from('not a protobuf at all'))])]);
  });

  it('drops a client that never finishes the handshake after handshakeTimeoutMs', async () => {
    const held = await closedAfter(sim.url, [NOISE_WA_HEADER]);
    assert.ok(held >= 250, `closed after ${held} ms`);
  });
});
