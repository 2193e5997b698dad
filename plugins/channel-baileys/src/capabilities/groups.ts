import { UpstreamError, type Group, type GroupsCapability } from '@parley/core';
import { joinRequests, participantResults, toGroup, toInviteInfo } from '../mapping/resources.js';
import type { AdapterRuntime } from '../runtime.js';
import { adminUpstream, GROUP_MISSING, INVITE_MISSING, upstream } from '../util/errors.js';

/** Groups (spec 4.10) over Baileys; metadata it fetches also refreshes the send-side group cache. */
export function groupsCapability(runtime: AdapterRuntime): GroupsCapability {
  const socket = () => runtime.connection.openSocket();
  const known = (lid: string) => runtime.groupCache.pnForLid(lid);
  const participants = (groupJid: string, list: string[], action: 'add' | 'remove' | 'promote' | 'demote') => {
    const s = socket();
    runtime.groupCache.del(groupJid);
    return adminUpstream(`the participant ${action}`, () => s.groupParticipantsUpdate(groupJid, list, action), GROUP_MISSING).then((r) => participantResults(r, known));
  };
  return {
    async list(): Promise<Group[]> {
      const s = socket();
      // Baileys emits every listed group as groups.update; the event router caches them from there.
      const all = await upstream('the group list query', () => s.groupFetchAllParticipating());
      return Object.values(all).filter((g) => !g.isCommunity).map(toGroup);
    },
    async get(groupJid) {
      const s = socket();
      const meta = await upstream('group', () => s.groupMetadata(groupJid), GROUP_MISSING);
      runtime.groupCache.set(meta.id, meta);
      return toGroup(meta);
    },
    async create(subject, members) {
      const s = socket();
      const meta = await upstream('the group creation', () => s.groupCreate(subject, members));
      runtime.groupCache.set(meta.id, meta);
      return toGroup(meta);
    },
    async update(groupJid, change) {
      const s = socket();
      if (change.subject !== undefined) await adminUpstream('the group subject change', () => s.groupUpdateSubject(groupJid, change.subject!), GROUP_MISSING);
      if (change.description !== undefined) await adminUpstream('the group description change', () => s.groupUpdateDescription(groupJid, change.description), GROUP_MISSING);
      runtime.groupCache.del(groupJid);
    },
    async setting(groupJid, setting) {
      const s = socket();
      await adminUpstream('the group setting change', () => s.groupSettingUpdate(groupJid, setting), GROUP_MISSING);
      runtime.groupCache.del(groupJid);
    },
    async leave(groupJid) {
      const s = socket();
      await upstream('leaving the group', () => s.groupLeave(groupJid), GROUP_MISSING);
      runtime.groupCache.del(groupJid);
    },
    addParticipants: (groupJid, list) => participants(groupJid, list, 'add'),
    removeParticipants: (groupJid, list) => participants(groupJid, list, 'remove'),
    promote: (groupJid, list) => participants(groupJid, list, 'promote'),
    demote: (groupJid, list) => participants(groupJid, list, 'demote'),
    async joinRequests(groupJid) {
      const s = socket();
      const list = await adminUpstream('the join request list', () => s.groupRequestParticipantsList(groupJid), GROUP_MISSING);
      runtime.groupCache.learnRequesters(list);
      return joinRequests(list);
    },
    async handleJoinRequests(groupJid, list, action) {
      const s = socket();
      runtime.groupCache.del(groupJid);
      return participantResults(await adminUpstream('the join request update', () => s.groupRequestParticipantsUpdate(groupJid, list, action), GROUP_MISSING), known);
    },
    async inviteCode(groupJid) {
      const s = socket();
      const code = await adminUpstream('the invite code query', () => s.groupInviteCode(groupJid), GROUP_MISSING);
      if (!code) throw new UpstreamError('WhatsApp answered no invite code', { retryable: false });
      return code;
    },
    async inviteInfo(code) {
      const s = socket();
      return toInviteInfo(await upstream('invite', () => s.groupGetInviteInfo(code), INVITE_MISSING));
    },
    async acceptInvite(code) {
      const s = socket();
      const joined = await upstream('invite', () => s.groupAcceptInvite(code), INVITE_MISSING);
      if (joined) return joined;
      // With join approval on, WhatsApp answers <membership_approval_request jid> instead of <group jid>
      // (whatsmeow group.go JoinGroupWithLink), which Baileys' groupAcceptInvite reads as no group: the
      // request waits in the group the code leads to.
      return (await upstream('invite', () => s.groupGetInviteInfo(code), INVITE_MISSING)).id;
    },
    async joinApproval(groupJid, mode) {
      const s = socket();
      await adminUpstream('the join-approval change', () => s.groupJoinApprovalMode(groupJid, mode), GROUP_MISSING);
      runtime.groupCache.del(groupJid);
    },
    async setPicture(groupJid, image) {
      const s = socket();
      await adminUpstream('the group picture change', () => s.updateProfilePicture(groupJid, image.data), GROUP_MISSING);
    },
    async removePicture(groupJid) {
      const s = socket();
      await adminUpstream('the group picture removal', () => s.removeProfilePicture(groupJid), GROUP_MISSING);
    },
  };
}
