import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import type { ChannelDriver, Logger } from '@parley/core';
import { baileysPlugin } from '../src/index.js';

const { SessionRecord } = createRequire(import.meta.url)('libsignal') as {
  SessionRecord: new () => { closeSession(session: unknown): void };
};

describe('libsignal\'s console output in a server with the WhatsApp channel', () => {
  it('goes to the server\'s logger at debug level, as text without the session (its private keys), not to the console', async () => {
    const logged: Array<[string, unknown, string]> = [];
    const logger: Logger = {
      child: () => logger, trace() {}, info() {}, warn() {}, error() {}, fatal() {},
      debug: (fields: unknown, message?: string) => void logged.push(['debug', fields, message ?? '']),
    } as Logger;
    const printed: unknown[][] = [];
    const info = console.info;
    console.info = (...args: unknown[]) => void printed.push(args);
    try {
      const drivers: ChannelDriver[] = [];
      await baileysPlugin().register!({ options: {}, logger, host: { allowPrivateUrls: false }, clock: { now: () => 0 }, channels: { add: (d: ChannelDriver) => drivers.push(d) } } as never);
      assert.equal(drivers.length, 1);
      new SessionRecord().closeSession({ indexInfo: { closed: -1 }, currentRatchet: { ephemeralKeyPair: { privKey: Buffer.from('secret') } } });
    } finally {
      console.info = info;
    }
    assert.deepEqual(printed, []);
    assert.deepEqual(logged, [['debug', { libsignal: 'Closing session:' }, 'libsignal']]);
  });
});
