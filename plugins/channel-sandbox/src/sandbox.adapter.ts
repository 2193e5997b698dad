import type { CapabilityGaps, ChannelAdapter, ChannelCapabilities } from '@parley/core';
import { SandboxCalls } from './capabilities/calls.js';
import { SandboxCatalog } from './capabilities/catalog.js';
import { SandboxChats } from './capabilities/chats.js';
import { SandboxCommunities } from './capabilities/communities.js';
import { SandboxConnection } from './capabilities/connection.js';
import { SandboxContacts } from './capabilities/contacts.js';
import { SandboxGroups } from './capabilities/groups.js';
import { SandboxLabels } from './capabilities/labels.js';
import { SandboxMessaging } from './capabilities/messaging.js';
import { SandboxMobile } from './capabilities/mobile.js';
import { SandboxProfile } from './capabilities/profile.js';
import { SandboxStatus } from './capabilities/status.js';
import type { SandboxDevice } from './sandbox-device.js';

/** A sandbox instance's adapter: one simulated phone and its capabilities. */
export class SandboxAdapter implements ChannelAdapter {
  readonly channel = 'whatsapp' as const;
  readonly capabilities: ChannelCapabilities;
  readonly capabilityGaps: CapabilityGaps = {};
  readonly connection: SandboxConnection;
  readonly mobile: SandboxMobile;

  constructor(
    readonly device: SandboxDevice,
    pictureUrl: (instanceId: string, sha: string) => string,
  ) {
    const calls = new SandboxCalls(device);
    this.connection = new SandboxConnection(device, [calls]);
    this.mobile = new SandboxMobile(device, this.connection);
    this.capabilities = {
      connection: this.connection,
      mobile: this.mobile,
      profile: new SandboxProfile(device, pictureUrl),
      messaging: new SandboxMessaging(device),
      chats: new SandboxChats(device),
      calls,
      labels: new SandboxLabels(device),
      contacts: new SandboxContacts(device),
      groups: new SandboxGroups(device, pictureUrl),
      communities: new SandboxCommunities(device, pictureUrl),
      catalog: new SandboxCatalog(device),
      status: new SandboxStatus(device),
    };
  }

  async stop(): Promise<void> {
    await this.connection.stop();
  }
}
