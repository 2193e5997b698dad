import type { Community } from '@parley/core';
import { isMember, type StoredGroup } from './sandbox-group-state.js';
import type { GroupTx } from './sandbox-group-tx.js';

/*
 * What makes a community more than a group: linked groups. A community is stored as a group record
 * (kind `community`) with the ids of its groups; each linked group names its parent.
 */

/** A community as the spec shows it (4.11). */
export function communityView(g: StoredGroup, pictureUrl: (id: string, sha: string) => string): Community {
  return {
    id: g.id, name: g.subject, subject: g.subject, description: g.desc, participants: g.participants.map((p) => ({ ...p })),
    owner: g.owner, creation: g.creation, groups: [...(g.groups ?? [])], announce: g.announce, restrict: g.restrict,
    ephemeralDuration: g.ephemeralDuration, memberAddMode: g.memberAddMode, joinApprovalMode: g.joinApprovalMode,
    ...(g.pictureSha ? { imgUrl: pictureUrl(g.id, g.pictureSha) } : {}),
  };
}

/**
 * Links a new group to its community; its members not in the community yet join it (`join`, which
 * adds and notifies them).
 */
export function linkGroup(tx: GroupTx, parent: StoredGroup, child: StoredGroup, join: (newcomers: string[]) => void): void {
  parent.groups = [...(parent.groups ?? []), child.id];
  join(child.participants.map((p) => p.id).filter((jid) => !isMember(parent, jid)));
  tx.put(parent);
}

/** The linked groups of a community that still exist (none for a group). */
export async function linkedGroups(tx: GroupTx, g: StoredGroup): Promise<StoredGroup[]> {
  if (g.kind !== 'community') return [];
  const children: StoredGroup[] = [];
  for (const linked of g.groups ?? []) {
    const child = await tx.get(linked);
    if (child) children.push(child);
  }
  return children;
}

/** Unlinks a deleted group from its community, or a deleted community from its groups. */
export async function unlinkDissolved(tx: GroupTx, g: StoredGroup): Promise<void> {
  if (g.linkedParent) {
    const parent = await tx.get(g.linkedParent);
    if (parent) {
      parent.groups = (parent.groups ?? []).filter((id) => id !== g.id);
      tx.put(parent);
    }
  }
  for (const linked of g.groups ?? []) {
    const child = await tx.get(linked);
    if (child) {
      delete child.linkedParent;
      tx.put(child);
    }
  }
}
