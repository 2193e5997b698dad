import {
  ConflictError, type CommunitiesCapability, type Community, type Group, type InviteInfo, type JoinRequest, type JoinRequestAction,
  type MediaInput, type ParticipantResult,
} from '@parley/core';
import type { SandboxDevice } from '../sandbox-device.js';
import { SandboxGroupDirectory } from '../sandbox-groups.js';
import { SETTING_FLAGS } from './groups.js';

/**
 * Communities of a sandbox phone: shared network records like groups, with linked groups. A group
 * created in a community is linked to it; its members join the community; leaving or being removed
 * from a community also leaves its linked groups. Only admins edit a community (created locked).
 */
export class SandboxCommunities implements CommunitiesCapability {
  private readonly directory: SandboxGroupDirectory;

  constructor(private readonly device: SandboxDevice, pictureUrl: (id: string, sha: string) => string) {
    this.directory = new SandboxGroupDirectory(device.network, device.ctx.storage, pictureUrl);
  }

  private actor(): string {
    if (!this.device.connected) throw new ConflictError('the instance is not connected', 'not_connected');
    return this.device.jid;
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

  async update(communityId: string, change: { subject?: string; description?: string }): Promise<void> {
    await this.directory.update(this.actor(), communityId, 'community', { subject: change.subject, desc: change.description });
  }

  async leave(communityId: string): Promise<void> {
    await this.directory.leave(this.actor(), communityId, 'community');
  }

  async setPicture(communityId: string, image: MediaInput): Promise<void> {
    await this.directory.setPicture(this.actor(), communityId, 'community', image);
  }

  inviteCode(communityId: string): Promise<string> {
    return this.directory.inviteCode(this.actor(), communityId, 'community');
  }

  removeParticipants(communityId: string, participants: string[]): Promise<ParticipantResult[]> {
    return this.directory.removeParticipants(this.actor(), communityId, 'community', participants);
  }

  acceptInvite(code: string): Promise<string> {
    return this.directory.acceptInvite(this.actor(), code, 'community');
  }

  async inviteInfo(code: string): Promise<InviteInfo> {
    this.actor();
    return this.directory.inviteInfo(code, 'community');
  }

  joinRequests(communityId: string): Promise<JoinRequest[]> {
    return this.directory.joinRequests(this.actor(), communityId, 'community');
  }

  handleJoinRequests(communityId: string, participants: string[], action: JoinRequestAction): Promise<ParticipantResult[]> {
    return this.directory.handleJoinRequests(this.actor(), communityId, 'community', participants, action);
  }

  async createGroup(communityId: string, subject: string, participants: string[]): Promise<Group> {
    const group = await this.directory.create(this.actor(), 'group', { subject, desc: '', participants, linkedParent: communityId });
    return this.directory.groupView(group);
  }

  async setEphemeral(communityId: string, expiration: number): Promise<void> {
    await this.directory.configure(this.actor(), communityId, 'community', { ephemeralDuration: expiration });
  }

  async setting(communityId: string, setting: 'announcement' | 'not_announcement' | 'locked' | 'unlocked'): Promise<void> {
    await this.directory.configure(this.actor(), communityId, 'community', SETTING_FLAGS[setting]);
  }

  async memberAddMode(communityId: string, mode: 'admin_add' | 'all_member_add'): Promise<void> {
    await this.directory.configure(this.actor(), communityId, 'community', { memberAddMode: mode });
  }

  async joinApproval(communityId: string, mode: 'on' | 'off'): Promise<void> {
    await this.directory.configure(this.actor(), communityId, 'community', { joinApprovalMode: mode === 'on' });
  }
}
