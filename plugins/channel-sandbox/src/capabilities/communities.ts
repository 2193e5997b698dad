import type { CommunitiesCapability, Community, Group } from '@parley/core';
import type { SandboxDevice } from '../sandbox-device.js';
import { SandboxGroupFamily } from './group-family.js';

/**
 * Communities of a sandbox phone: shared network records like groups, with linked groups. A group
 * created in a community is linked to it; its members join the community; leaving or being removed
 * from a community also leaves its linked groups. Only admins edit a community (created locked).
 */
export class SandboxCommunities extends SandboxGroupFamily implements CommunitiesCapability {
  constructor(device: SandboxDevice, pictureUrl: (id: string, sha: string) => string) {
    super(device, pictureUrl, 'community');
  }

  async list(): Promise<Community[]> {
    return (await this.directory.list(this.actor(), 'community')).map((c) => this.directory.communityView(c));
  }

  async get(communityId: string): Promise<Community> {
    return this.directory.communityView(await this.directory.get(this.actor(), communityId, 'community'));
  }

  async create(name: string, description: string): Promise<Community> {
    return this.directory.communityView(await this.directory.create(this.actor(), 'community', { subject: name, desc: description, participants: [] }));
  }

  async createGroup(communityId: string, subject: string, participants: string[]): Promise<Group> {
    const group = await this.directory.create(this.actor(), 'group', { subject, desc: '', participants, linkedParent: communityId });
    return this.directory.groupView(group);
  }

  async setEphemeral(communityId: string, expiration: number): Promise<void> {
    await this.directory.configure(this.actor(), communityId, 'community', { ephemeralDuration: expiration });
  }

  async memberAddMode(communityId: string, mode: 'admin_add' | 'all_member_add'): Promise<void> {
    await this.directory.configure(this.actor(), communityId, 'community', { memberAddMode: mode });
  }
}
