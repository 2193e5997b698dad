import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { driverSummary, registerPlugin } from '@parley/testkit';
import plugin from '../src/index.js';

describe('messenger plugin manifest', () => {
  it('registers the social driver "messenger" with its webhook routes', async () => {
    assert.deepStrictEqual({ name: plugin.name, kind: plugin.kind, coreVersion: plugin.coreVersion }, {
      name: '@parley/channel-messenger', kind: 'channel', coreVersion: '^0.1.0',
    });
    const drivers = (await registerPlugin(plugin, { graphVersion: 'v20.0' })).channels;
    assert.deepStrictEqual(drivers.map(driverSummary), [
      { name: 'messenger', channel: 'messenger', role: 'social', phoneNumbers: false, link: 'function', routes: ['get /webhook', 'post /webhook raw'] },
    ]);
  });
});
