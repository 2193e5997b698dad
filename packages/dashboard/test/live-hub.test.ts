import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { LiveHub, toLiveEvent, type LiveEvent, type LiveMode, type StreamFrame } from '../src/live-hub.js';

const native = (type: string, instance: string, data: Record<string, unknown>) => ({ id: `evt-${type}`, type, instance, provider: 'whatsapp', timestamp: '2026-01-01T00:00:00.000Z', data });

/** A stream source the test feeds: frames pushed after it opened, then an end or an error. */
function scriptedSource(frames: StreamFrame[], end?: Error) {
  let opened = 0;
  const source = async function* (_signal: AbortSignal, onOpen: () => void) {
    opened++;
    onOpen();
    for (const frame of frames) {
      await Promise.resolve();
      yield frame;
    }
    if (end) throw end;
  };
  return { source, opened: () => opened };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('LiveHub', () => {
  it('reads admin-stream frames ({instance, payload}) and instance-stream frames (the payload itself) alike', () => {
    const payload = native('qrcode', 'ins_a', { qr: '2@abc', image: 'data:image/png;base64,AA' });
    const admin = toLiveEvent({ id: '7', event: 'qrcode', data: { instance: 'ins_a', name: 'alice', format: 'native', payload } });
    const own = toLiveEvent({ id: '7', event: 'qrcode', data: payload });
    const expected: LiveEvent = { id: '7', type: 'qrcode', instance: 'ins_a', data: { qr: '2@abc', image: 'data:image/png;base64,AA' } };
    assert.deepEqual(admin, expected);
    assert.deepEqual(own, expected);
    assert.equal(toLiveEvent({ event: 'stream.gap', data: 'not an object' }), undefined);
  });

  it('hands each event to the subscribers of its instance and kind only, and streams while the source is open', async () => {
    const { source } = scriptedSource([
      { id: '1', event: 'qrcode', data: native('qrcode', 'ins_a', { qr: 'one' }) },
      { id: '2', event: 'message', data: native('message', 'ins_b', { text: 'hi' }) },
      { id: '3', event: 'connection', data: native('connection', 'ins_a', { status: 'open' }) },
    ]);
    const hub = new LiveHub((signal, onOpen) => source(signal, onOpen));
    const modes: LiveMode[] = [];
    hub.onMode((m) => modes.push(m));
    const a: string[] = [];
    const all: string[] = [];
    hub.subscribe({ instance: 'ins_a', types: ['qrcode', 'connection'] }, (e) => a.push(e.id!));
    const off = hub.subscribe({ types: ['message', 'connection'] }, (e) => all.push(e.id!));
    hub.start();
    await settle();
    assert.deepEqual(a, ['1', '3']);
    assert.deepEqual(all, ['2', '3']);
    assert.deepEqual(modes.slice(0, 1), ['streaming']);
    off();
    hub.stop();
    assert.equal(hub.mode, 'polling');
  });

  it('falls back to polling when the stream fails for good, and opens it again 15 s later', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const scripted = scriptedSource([], new Error('401 unauthorized'));
      const hub = new LiveHub((signal, onOpen) => scripted.source(signal, onOpen));
      const modes: LiveMode[] = [];
      hub.onMode((m) => modes.push(m));
      hub.start();
      await settle();
      assert.deepEqual(modes, ['streaming', 'polling']);
      assert.equal(scripted.opened(), 1);
      mock.timers.tick(14_999);
      assert.equal(scripted.opened(), 1);
      mock.timers.tick(1);
      await settle();
      assert.equal(scripted.opened(), 2, 'opened again');
      hub.stop();
    } finally {
      mock.timers.reset();
    }
  });

  it('without a source the views poll and nothing is opened', () => {
    const hub = new LiveHub(undefined);
    hub.start();
    assert.equal(hub.mode, 'polling');
  });
});
