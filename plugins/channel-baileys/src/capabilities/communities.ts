import { UpstreamError, type CommunitiesCapability, type Community } from '@parley/core';
import { joinRequests, participantResults, toCommunity, toGroup, toInviteInfo } from '../mapping/resources.js';
import type { AdapterRuntime } from '../runtime.js';
import { upstream } from '../util/errors.js';

/** Communities (spec 4.11) over Baileys 7's `community*` functions. */
export function communitiesCapability(runtime: AdapterRuntime): CommunitiesCapability {
  const socket = () => runtime.connection.openSocket();
  return {
    async list(): Promise<Community[]> {
      const s = socket();
      // Baileys' communityFetchAllParticipating reads a <communities> child that WhatsApp's answer to this
      // query does not have (it always answers {}); communities come as groups marked with <parent>.
      const all = await upstream('the community list query', () => s.groupFetchAllParticipating());
      return Object.values(all).filter((c) => c.isCommunity).map((c) => toCommunity(c));
    },
    async get(communityId) {
      const s = socket();
      // WhatsApp answers a community's metadata query with a <group> carrying <parent> (whatsmeow group.go
      // getGroupInfo/parseGroupNode); Baileys' communityMetadata reads a <community> child that is not there.
      const meta = await upstream('community', () => s.groupMetadata(communityId));
      const linked = await upstream('the linked group list', () => s.communityFetchLinkedGroups(communityId));
      return toCommunity(meta, linked.linkedGroups.map((g) => g.id).filter((id): id is string => typeof id === 'string'));
    },
    async create(name, description) {
      const s = socket();
      const meta = await upstream('the community creation', () => s.communityCreate(name, description));
      if (!meta) throw new UpstreamError('WhatsApp did not answer the created community', { retryable: false });
      return toCommunity(meta);
    },
    async update(communityId, change) {
      const s = socket();
      if (change.subject !== undefined) await upstream('the community subject change', () => s.communityUpdateSubject(communityId, change.subject!));
      if (change.description !== undefined) {
        // Baileys' communityUpdateDescription reads the previous description id through communityMetadata (a
        // <community> child WhatsApp does not send); groupUpdateDescription sends the same w:g2 <description>.
        await upstream('the community description change', () => s.groupUpdateDescription(communityId, change.description));
      }
    },
    async leave(communityId) {
      const s = socket();
      await upstream('leaving the community', () => s.communityLeave(communityId));
    },
    async setPicture(communityId, image) {
      const s = socket();
      await upstream('the community picture change', () => s.updateProfilePicture(communityId, image.data));
    },
    async inviteCode(communityId) {
      const s = socket();
      const code = await upstream('the community invite code query', () => s.communityInviteCode(communityId));
      if (!code) throw new UpstreamError('WhatsApp answered no invite code', { retryable: false });
      return code;
    },
    async removeParticipants(communityId, participants) {
      const s = socket();
      return participantResults(await upstream('the participant removal', () => s.communityParticipantsUpdate(communityId, participants, 'remove')));
    },
    async acceptInvite(code) {
      const s = socket();
      const id = await upstream('the community invite', () => s.communityAcceptInvite(code));
      if (!id) throw new UpstreamError('WhatsApp did not answer the joined community', { retryable: false });
      return id;
    },
    async inviteInfo(code) {
      const s = socket();
      // The invite's answer is a <group> too (whatsmeow GetGroupInfoFromLink), not the <community> communityGetInviteInfo reads.
      return toInviteInfo(await upstream('invite', () => s.groupGetInviteInfo(code)));
    },
    async joinRequests(communityId) {
      const s = socket();
      return joinRequests(await upstream('the join request list', () => s.communityRequestParticipantsList(communityId)));
    },
    async handleJoinRequests(communityId, participants, action) {
      const s = socket();
      return participantResults(await upstream('the join request update', () => s.communityRequestParticipantsUpdate(communityId, participants, action)));
    },
    async createGroup(communityId, subject, participants) {
      const s = socket();
      const meta = await upstream('the community group creation', () => s.communityCreateGroup(subject, participants, communityId));
      if (!meta) throw new UpstreamError('WhatsApp did not answer the created group', { retryable: false });
      return toGroup(meta);
    },
    async setEphemeral(communityId, expiration) {
      const s = socket();
      await upstream('the disappearing-messages setting', () => s.communityToggleEphemeral(communityId, expiration));
    },
    async setting(communityId, setting) {
      const s = socket();
      await upstream('the community setting change', () => s.communitySettingUpdate(communityId, setting));
    },
    async memberAddMode(communityId, mode) {
      const s = socket();
      await upstream('the member-add mode change', () => s.communityMemberAddMode(communityId, mode));
    },
    async joinApproval(communityId, mode) {
      const s = socket();
      await upstream('the join-approval change', () => s.communityJoinApprovalMode(communityId, mode));
    },
  };
}
