import { definePlugin } from '@parley/core';
import { SandboxDriver } from './sandbox.driver.js';
import { defaultSandboxOptions, sandboxOptionsSchema, type SandboxOptions } from './sandbox.options.js';

export { SandboxDriver, type SandboxDriverDeps } from './sandbox.driver.js';
export { SandboxAdapter } from './sandbox.adapter.js';
export { SandboxNetwork } from './sandbox-network.js';
export { sandboxLinks, type SandboxLink } from './sandbox-links.js';
export { defaultSandboxOptions, sandboxOptionsSchema, type SandboxOptions } from './sandbox.options.js';

/** The sandbox channel plugin: registers the `sandbox` main-channel driver. */
export default definePlugin<Partial<SandboxOptions>>({
  name: '@parley/channel-sandbox',
  kind: 'channel',
  provides: { channels: ['sandbox'] },
  coreVersion: '^0.1.0',
  optionsSchema: sandboxOptionsSchema,
  register({ channels, options, logger, host, clock }) {
    const driver = new SandboxDriver({ options: { ...defaultSandboxOptions, ...options }, host, logger, clock });
    channels.add(driver);
  },
});
