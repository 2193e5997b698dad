import type { MediaInput } from '../domain/outgoing.js';
import type { Group, InviteInfo, JoinRequest, JoinRequestAction, ParticipantResult } from '../domain/resources.js';

/** Group setting of spec 4.10 PATCH. */
export type GroupSetting = 'announcement' | 'not_announcement' | 'locked' | 'unlocked';

/** Groups (spec 4.10). Participants are JIDs; the server turns numbers into JIDs. */
export interface GroupsCapability {
  list(): Promise<Group[]>;
  /** Throws NotFoundError for an unknown group. */
  get(groupJid: string): Promise<Group>;
  create(subject: string, participants: string[]): Promise<Group>;
  update(groupJid: string, change: { subject?: string; description?: string }): Promise<void>;
  setting(groupJid: string, setting: GroupSetting): Promise<void>;
  leave(groupJid: string): Promise<void>;
  addParticipants(groupJid: string, participants: string[]): Promise<ParticipantResult[]>;
  removeParticipants(groupJid: string, participants: string[]): Promise<ParticipantResult[]>;
  promote(groupJid: string, participants: string[]): Promise<ParticipantResult[]>;
  demote(groupJid: string, participants: string[]): Promise<ParticipantResult[]>;
  joinRequests(groupJid: string): Promise<JoinRequest[]>;
  handleJoinRequests(groupJid: string, participants: string[], action: JoinRequestAction): Promise<ParticipantResult[]>;
  inviteCode(groupJid: string): Promise<string>;
  inviteInfo(code: string): Promise<InviteInfo>;
  setPicture(groupJid: string, image: MediaInput): Promise<void>;
  removePicture(groupJid: string): Promise<void>;
  /**
   * Joins a group through its invite code (extension); answers the group JID. With join approval on,
   * the join becomes a pending request instead. Throws NotFoundError for an unknown code.
   */
  acceptInvite?(code: string): Promise<string>;
  /** Turns admin approval of new members on or off (extension). */
  joinApproval?(groupJid: string, mode: 'on' | 'off'): Promise<void>;
}
