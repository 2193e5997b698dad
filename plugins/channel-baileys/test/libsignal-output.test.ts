import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import type { ChannelDriver, Logger } from '@parley/core';
import baileysModuleLogger from '@whiskeysockets/baileys/lib/Utils/logger.js';
import { baileysPlugin } from '../src/index.js';

const { SessionRecord } = createRequire(import.meta.url)('libsignal') as {
  SessionRecord: new () => { closeSession(session: unknown): void };
};

describe('what Baileys and libsignal print themselves, in a server with the WhatsApp channel', () => {
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

  it('quiets Baileys\' process-wide logger, which prints whole group results at info on every community call', async () => {
    baileysModuleLogger.level = 'info'; // Baileys' default
    const logger = { child: () => logger, trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} } as unknown as Logger;
    await baileysPlugin().register!({ options: {}, logger, host: { allowPrivateUrls: false }, clock: { now: () => 0 }, channels: { add() {} } } as never);
    assert.equal(baileysModuleLogger.isLevelEnabled('info'), false);
    assert.equal(baileysModuleLogger.isLevelEnabled('warn'), true);
  });
});
