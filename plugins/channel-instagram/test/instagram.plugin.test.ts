import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
// @parley/core first: it loads the reflect polyfill tsyringe needs.
import { Tokens, type Logger } from '@parley/core';
import { container } from 'tsyringe';
import plugin from '../src/index.js';

const logger: Logger = { child: () => logger, trace() {}, debug() {}, info() {}, warn() {}, error() {}, fatal() {} };

describe('instagram plugin manifest', () => {
  it('registers the social driver "instagram" with its webhook routes', async () => {
    assert.deepStrictEqual({ name: plugin.name, kind: plugin.kind, coreVersion: plugin.coreVersion }, {
      name: '@parley/channel-instagram', kind: 'channel', coreVersion: '^0.1.0',
    });
    const child = container.createChildContainer();
    await plugin.register({ container: child, options: { graphVersion: 'v20.0' }, logger, host: { dataDir: '/tmp', publicUrl: 'http://127.0.0.1', allowPrivateUrls: false } });
    const drivers = child.resolveAll(Tokens.ChannelDriver);
    assert.deepStrictEqual(drivers.map((driver) => ({
      name: driver.name, channel: driver.channel, role: driver.role, link: typeof driver.link,
      routes: driver.routes?.map((route) => `${route.method} ${route.path}${route.rawBody ? ' raw' : ''}`),
    })), [{ name: 'instagram', channel: 'instagram', role: 'social', link: 'function', routes: ['get /webhook', 'post /webhook raw'] }]);
  });
});
