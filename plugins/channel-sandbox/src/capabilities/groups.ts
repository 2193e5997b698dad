import {
  ConflictError, type Group, type GroupSetting, type GroupsCapability, type InviteInfo, type JoinRequest, type JoinRequestAction,
  type MediaInput, type ParticipantResult,
} from '@parley/core';
import type { SandboxDevice } from '../sandbox-device.js';
import { SandboxGroupDirectory, type GroupSettings } from '../sandbox-groups.js';

/** Spec 4.10 settings as stored flags. */
export const SETTING_FLAGS: Record<GroupSetting, GroupSettings> = {
  announcement: { announce: true },
  not_announcement: { announce: false },
  locked: { restrict: true },
  unlocked: { restrict: false },
};

/**
 * Groups of a sandbox phone: real groups of the sandbox network, shared with the other members'
 * instances (see {@link SandboxGroupDirectory}). Every operation needs the phone connected.
 */
export class SandboxGroups implements GroupsCapability {
  private readonly directory: SandboxGroupDirectory;

  constructor(private readonly device: SandboxDevice, pictureUrl: (id: string, sha: string) => string) {
    this.directory = new SandboxGroupDirectory(device.network, device.ctx.storage, pictureUrl);
  }

  /** The acting member's JID, once the phone is known to be online. */
  private actor(): string {
    if (!this.device.connected) throw new ConflictError('the instance is not connected', 'not_connected');
    return this.device.jid;
  }

  async list(): Promise<Group[]> {
    return (await this.directory.list(this.actor(), 'group')).map((g) => this.directory.groupView(g));
  }

  async get(groupJid: string): Promise<Group> {
    return this.directory.groupView(await this.directory.get(this.actor(), groupJid, 'group'));
  }

  async create(subject: string, participants: string[]): Promise<Group> {
    return this.directory.groupView(await this.directory.create(this.actor(), 'group', { subject, desc: '', participants }));
  }

  async update(groupJid: string, change: { subject?: string; description?: string }): Promise<void> {
    await this.directory.update(this.actor(), groupJid, 'group', { subject: change.subject, desc: change.description });
  }

  async setting(groupJid: string, setting: GroupSetting): Promise<void> {
    await this.directory.configure(this.actor(), groupJid, 'group', SETTING_FLAGS[setting]);
  }

  async leave(groupJid: string): Promise<void> {
    await this.directory.leave(this.actor(), groupJid, 'group');
  }

  addParticipants(groupJid: string, participants: string[]): Promise<ParticipantResult[]> {
    return this.directory.addParticipants(this.actor(), groupJid, 'group', participants);
  }

  removeParticipants(groupJid: string, participants: string[]): Promise<ParticipantResult[]> {
    return this.directory.removeParticipants(this.actor(), groupJid, 'group', participants);
  }

  promote(groupJid: string, participants: string[]): Promise<ParticipantResult[]> {
    return this.directory.setRole(this.actor(), groupJid, 'group', participants, 'promote');
  }

  demote(groupJid: string, participants: string[]): Promise<ParticipantResult[]> {
    return this.directory.setRole(this.actor(), groupJid, 'group', participants, 'demote');
  }

  joinRequests(groupJid: string): Promise<JoinRequest[]> {
    return this.directory.joinRequests(this.actor(), groupJid, 'group');
  }

  handleJoinRequests(groupJid: string, participants: string[], action: JoinRequestAction): Promise<ParticipantResult[]> {
    return this.directory.handleJoinRequests(this.actor(), groupJid, 'group', participants, action);
  }

  inviteCode(groupJid: string): Promise<string> {
    return this.directory.inviteCode(this.actor(), groupJid, 'group');
  }

  async inviteInfo(code: string): Promise<InviteInfo> {
    this.actor();
    return this.directory.inviteInfo(code, 'group');
  }

  acceptInvite(code: string): Promise<string> {
    return this.directory.acceptInvite(this.actor(), code, 'group');
  }

  async joinApproval(groupJid: string, mode: 'on' | 'off'): Promise<void> {
    await this.directory.configure(this.actor(), groupJid, 'group', { joinApprovalMode: mode === 'on' });
  }

  async setPicture(groupJid: string, image: MediaInput): Promise<void> {
    await this.directory.setPicture(this.actor(), groupJid, 'group', image);
  }

  async removePicture(groupJid: string): Promise<void> {
    await this.directory.setPicture(this.actor(), groupJid, 'group', null);
  }
}
