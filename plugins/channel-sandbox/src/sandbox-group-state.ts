import { type GroupParticipant, type JoinRequest, type Storage } from '@parley/core';
import { jidUser } from '@parley/whatsapp-proto';

/*
 * The group records of the sandbox network as every part of it reads them: who belongs to a group.
 * The network fans group messages out from here, so this module depends on nothing of the sandbox.
 */

/** Network-wide namespace of groups and communities, by JID: shared by the members' phones. */
export const GROUPS_NAMESPACE = 'sandbox:groups';
/** Invite code → group JID. */
export const INVITES_NAMESPACE = 'sandbox:group-invites';
/** Group picture bytes (base64, so the state stays JSON), by group JID. */
export const GROUP_PICTURES_NAMESPACE = 'sandbox:group-pictures';

/** A community is a group with linked groups, as on WhatsApp; both live in one namespace. */
export type GroupKind = 'group' | 'community';

/** A group or community as the sandbox network keeps it. Participants are phone-number JIDs. */
export interface StoredGroup {
  id: string;
  kind: GroupKind;
  subject: string;
  desc: string;
  owner: string;
  /** Unix seconds. */
  creation: number;
  participants: GroupParticipant[];
  announce: boolean;
  restrict: boolean;
  ephemeralDuration: number;
  joinApprovalMode: boolean;
  memberAddMode: 'admin_add' | 'all_member_add';
  inviteCode: string;
  requests: JoinRequest[];
  /** Parent community of a linked group. */
  linkedParent?: string;
  /** Linked groups of a community. */
  groups?: string[];
  pictureSha?: string;
}

/** A group picture as stored. */
export interface StoredPicture {
  mimetype: string;
  data: string;
  sha256: string;
}

/** Settings an admin changes (spec 4.10 PATCH, 4.11 settings, member-add-mode, join-approval, ephemeral). */
export type GroupSettings = Partial<Pick<StoredGroup, 'announce' | 'restrict' | 'ephemeralDuration' | 'joinApprovalMode' | 'memberAddMode'>>;

export const isMember = (g: StoredGroup, jid: string): boolean => g.participants.some((p) => p.id === jid);
export const roleOf = (g: StoredGroup, jid: string) => g.participants.find((p) => p.id === jid)?.admin;
export const memberJids = (g: StoredGroup): string[] => g.participants.map((p) => p.id);

/** The members of a group as phone numbers (message fan-out); empty for an unknown group. */
export async function groupMemberNumbers(storage: Storage, groupJid: string): Promise<string[]> {
  const g = await storage.state.get<StoredGroup>(GROUPS_NAMESPACE, groupJid);
  return g ? g.participants.map((p) => jidUser(p.id)) : [];
}

/** A group's picture bytes (served publicly by the sandbox pictures route), or null when it has none. */
export async function groupPicture(storage: Storage, groupJid: string): Promise<{ data: Buffer; mimetype: string } | null> {
  const picture = await storage.state.get<StoredPicture>(GROUP_PICTURES_NAMESPACE, groupJid);
  return picture ? { data: Buffer.from(picture.data, 'base64'), mimetype: picture.mimetype } : null;
}
