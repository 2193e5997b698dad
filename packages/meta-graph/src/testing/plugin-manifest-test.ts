import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PluginManifest } from '@parley/core';
import { driverSummary, registerPlugin } from '@parley/testkit';
import type { MetaChannelProfile } from '../channel-profile.js';
import type { MetaGraphOptions } from '../options.js';

/**
 * The manifest test of a Meta channel plugin: its identity, and that registering it adds exactly the
 * social driver of `channel` with the Graph webhook routes.
 */
export function describeMetaPluginManifest(plugin: PluginManifest<Partial<MetaGraphOptions>>, name: string, channel: MetaChannelProfile['channel']): void {
  describe(`${channel} plugin manifest`, () => {
    it(`registers the social driver "${channel}" with its webhook routes`, async () => {
      assert.deepStrictEqual({ name: plugin.name, kind: plugin.kind, coreVersion: plugin.coreVersion }, {
        name, kind: 'channel', coreVersion: '^0.1.0',
      });
      const drivers = (await registerPlugin(plugin, { graphVersion: 'v20.0' })).channels;
      assert.deepStrictEqual(drivers.map(driverSummary), [
        { name: channel, channel, role: 'social', phoneNumbers: false, link: 'function', routes: ['get /webhook', 'post /webhook raw'] },
      ]);
    });
  });
}
