import { UpstreamError, type Group, type GroupsCapability } from '@parley/core';
import { joinRequests, participantResults, toGroup, toInviteInfo } from '../mapping/resources.js';
import type { AdapterRuntime } from '../runtime.js';
import { upstream } from '../util/errors.js';

/** Groups (spec 4.10) over Baileys; metadata it fetches also refreshes the send-side group cache. */
export function groupsCapability(runtime: AdapterRuntime): GroupsCapability {
  const socket = () => runtime.connection.openSocket();
  const participants = (groupJid: string, list: string[], action: 'add' | 'remove' | 'promote' | 'demote') => {
    const s = socket();
    runtime.groupCache.del(groupJid);
    return upstream(`the participant ${action}`, () => s.groupParticipantsUpdate(groupJid, list, action)).then(participantResults);
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
      const meta = await upstream('group', () => s.groupMetadata(groupJid));
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
      if (change.subject !== undefined) await upstream('the group subject change', () => s.groupUpdateSubject(groupJid, change.subject!));
      if (change.description !== undefined) await upstream('the group description change', () => s.groupUpdateDescription(groupJid, change.description));
      runtime.groupCache.del(groupJid);
    },
    async setting(groupJid, setting) {
      const s = socket();
      await upstream('the group setting change', () => s.groupSettingUpdate(groupJid, setting));
      runtime.groupCache.del(groupJid);
    },
    async leave(groupJid) {
      const s = socket();
      await upstream('leaving the group', () => s.groupLeave(groupJid));
      runtime.groupCache.del(groupJid);
    },
    addParticipants: (groupJid, list) => participants(groupJid, list, 'add'),
    removeParticipants: (groupJid, list) => participants(groupJid, list, 'remove'),
    promote: (groupJid, list) => participants(groupJid, list, 'promote'),
    demote: (groupJid, list) => participants(groupJid, list, 'demote'),
    async joinRequests(groupJid) {
      const s = socket();
      return joinRequests(await upstream('the join request list', () => s.groupRequestParticipantsList(groupJid)));
    },
    async handleJoinRequests(groupJid, list, action) {
      const s = socket();
      runtime.groupCache.del(groupJid);
      return participantResults(await upstream('the join request update', () => s.groupRequestParticipantsUpdate(groupJid, list, action)));
    },
    async inviteCode(groupJid) {
      const s = socket();
      const code = await upstream('the invite code query', () => s.groupInviteCode(groupJid));
      if (!code) throw new UpstreamError('WhatsApp answered no invite code', { retryable: false });
      return code;
    },
    async inviteInfo(code) {
      const s = socket();
      return toInviteInfo(await upstream('invite', () => s.groupGetInviteInfo(code)));
    },
    async acceptInvite(code) {
      const s = socket();
      const joined = await upstream('invite', () => s.groupAcceptInvite(code));
      if (joined) return joined;
      // With join approval on, WhatsApp answers <membership_approval_request jid> instead of <group jid>
      // (whatsmeow group.go JoinGroupWithLink), which Baileys' groupAcceptInvite reads as no group: the
      // request waits in the group the code leads to.
      return (await upstream('invite', () => s.groupGetInviteInfo(code))).id;
    },
    async joinApproval(groupJid, mode) {
      const s = socket();
      await upstream('the join-approval change', () => s.groupJoinApprovalMode(groupJid, mode));
      runtime.groupCache.del(groupJid);
    },
    async setPicture(groupJid, image) {
      const s = socket();
      await upstream('the group picture change', () => s.updateProfilePicture(groupJid, image.data));
    },
    async removePicture(groupJid) {
      const s = socket();
      await upstream('the group picture removal', () => s.removeProfilePicture(groupJid));
    },
  };
}
