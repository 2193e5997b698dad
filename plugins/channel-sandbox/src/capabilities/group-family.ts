import type { GroupSetting, InviteInfo, JoinRequest, JoinRequestAction, MediaInput, ParticipantResult } from '@parley/core';
import type { SandboxDevice } from '../sandbox-device.js';
import { SandboxGroupDirectory, type GroupKind, type GroupSettings } from '../sandbox-groups.js';

/** Spec 4.10/4.11 settings as stored flags. */
const SETTING_FLAGS: Record<GroupSetting, GroupSettings> = {
  announcement: { announce: true },
  not_announcement: { announce: false },
  locked: { restrict: true },
  unlocked: { restrict: false },
};

/**
 * What the groups and the communities of a sandbox phone share: real records of the sandbox network
 * (see {@link SandboxGroupDirectory}), acted on by this phone once it is online, and the operations
 * that work alike on both kinds.
 */
export abstract class SandboxGroupFamily {
  protected readonly directory: SandboxGroupDirectory;

  constructor(private readonly device: SandboxDevice, pictureUrl: (id: string, sha: string) => string, private readonly kind: GroupKind) {
    this.directory = new SandboxGroupDirectory(device.network, device.ctx.storage, pictureUrl);
  }

  /** The acting member's JID, once the phone is known to be online. */
  protected actor(): string {
    this.device.requireConnected();
    return this.device.jid;
  }

  async update(id: string, change: { subject?: string; description?: string }): Promise<void> {
    await this.directory.update(this.actor(), id, this.kind, { subject: change.subject, desc: change.description });
  }

  async setting(id: string, setting: GroupSetting): Promise<void> {
    await this.directory.configure(this.actor(), id, this.kind, SETTING_FLAGS[setting]);
  }

  async joinApproval(id: string, mode: 'on' | 'off'): Promise<void> {
    await this.directory.configure(this.actor(), id, this.kind, { joinApprovalMode: mode === 'on' });
  }

  async leave(id: string): Promise<void> {
    await this.directory.leave(this.actor(), id, this.kind);
  }

  async setPicture(id: string, image: MediaInput): Promise<void> {
    await this.directory.setPicture(this.actor(), id, this.kind, image);
  }

  removeParticipants(id: string, participants: string[]): Promise<ParticipantResult[]> {
    return this.directory.removeParticipants(this.actor(), id, this.kind, participants);
  }

  joinRequests(id: string): Promise<JoinRequest[]> {
    return this.directory.joinRequests(this.actor(), id, this.kind);
  }

  handleJoinRequests(id: string, participants: string[], action: JoinRequestAction): Promise<ParticipantResult[]> {
    return this.directory.handleJoinRequests(this.actor(), id, this.kind, participants, action);
  }

  inviteCode(id: string): Promise<string> {
    return this.directory.inviteCode(this.actor(), id, this.kind);
  }

  async inviteInfo(code: string): Promise<InviteInfo> {
    this.actor();
    return this.directory.inviteInfo(code, this.kind);
  }

  acceptInvite(code: string): Promise<string> {
    return this.directory.acceptInvite(this.actor(), code, this.kind);
  }
}
