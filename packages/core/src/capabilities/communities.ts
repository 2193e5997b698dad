import type { MediaInput } from '../domain/outgoing.js';
import type { Community, Group, InviteInfo, JoinRequest, JoinRequestAction, ParticipantResult } from '../domain/resources.js';

/** Communities (spec 4.11). */
export interface CommunitiesCapability {
  list(): Promise<Community[]>;
  get(communityId: string): Promise<Community>;
  create(name: string, description: string): Promise<Community>;
  update(communityId: string, change: { subject?: string; description?: string }): Promise<void>;
  leave(communityId: string): Promise<void>;
  setPicture(communityId: string, image: MediaInput): Promise<void>;
  inviteCode(communityId: string): Promise<string>;
  removeParticipants(communityId: string, participants: string[]): Promise<ParticipantResult[]>;
  /** Joins through an invite code; answers the community id. */
  acceptInvite(code: string): Promise<string>;
  inviteInfo(code: string): Promise<InviteInfo>;
  joinRequests(communityId: string): Promise<JoinRequest[]>;
  handleJoinRequests(communityId: string, participants: string[], action: JoinRequestAction): Promise<ParticipantResult[]>;
  createGroup(communityId: string, subject: string, participants: string[]): Promise<Group>;
  setEphemeral(communityId: string, expiration: number): Promise<void>;
  setting(communityId: string, setting: 'announcement' | 'not_announcement' | 'locked' | 'unlocked'): Promise<void>;
  memberAddMode(communityId: string, mode: 'admin_add' | 'all_member_add'): Promise<void>;
  joinApproval(communityId: string, mode: 'on' | 'off'): Promise<void>;
}
