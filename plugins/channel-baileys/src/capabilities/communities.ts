import { NotFoundError, UpstreamError, type CommunitiesCapability, type Community } from '@parley/core';
import type { GroupMetadata } from '@whiskeysockets/baileys';
import { joinRequests, participantResults, toCommunity, toGroup, toInviteInfo } from '../mapping/resources.js';
import type { AdapterRuntime } from '../runtime.js';
import type { BaileysSocket } from '../socket.js';
import { adminUpstream, COMMUNITY_MISSING, INVITE_MISSING, upstream } from '../util/errors.js';

/**
 * The metadata of the community `id`: WhatsApp answers a community's metadata query with a <group> carrying
 * <parent> (whatsmeow group.go getGroupInfo/parseGroupNode); Baileys' communityMetadata reads a <community> child
 * that is not there. A plain group is not a community (docs/rest-api.md Communities): 404 `community_not_found`,
 * before any community route changes anything on it.
 */
async function communityMetadata(s: BaileysSocket, id: string): Promise<GroupMetadata> {
  const meta = await upstream('community', () => s.groupMetadata(id), COMMUNITY_MISSING);
  if (!meta.isCommunity) throw new NotFoundError('community', COMMUNITY_MISSING.code);
  return meta;
}

/**
 * Communities (spec 4.11) over Baileys 7's `community*` functions. In a LID-addressed community, join requesters
 * and the answers to approving or rejecting them are by number where known, as in LID-addressed groups (groups.ts).
 */
export function communitiesCapability(runtime: AdapterRuntime): CommunitiesCapability {
  const socket = () => runtime.connection.openSocket();
  const known = (lid: string) => runtime.groupCache.pnForLid(lid);
  /** The open socket, once `communityId` is known to be a community the account is in. */
  const onCommunity = async (communityId: string): Promise<BaileysSocket> => {
    const s = socket();
    await communityMetadata(s, communityId);
    return s;
  };
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
      const meta = await communityMetadata(s, communityId);
      const linked = await upstream('the linked group list', () => s.communityFetchLinkedGroups(communityId), COMMUNITY_MISSING);
      return toCommunity(meta, linked.linkedGroups.map((g) => g.id).filter((id): id is string => typeof id === 'string'));
    },
    async create(name, description) {
      const s = socket();
      const meta = await upstream('the community creation', () => s.communityCreate(name, description));
      if (!meta) throw new UpstreamError('WhatsApp did not answer the created community', { retryable: false });
      return toCommunity(meta);
    },
    async update(communityId, change) {
      const s = await onCommunity(communityId);
      if (change.subject !== undefined) await adminUpstream('the community subject change', () => s.communityUpdateSubject(communityId, change.subject!), COMMUNITY_MISSING);
      if (change.description !== undefined) {
        // Baileys' communityUpdateDescription reads the previous description id through communityMetadata (a
        // <community> child WhatsApp does not send); groupUpdateDescription sends the same w:g2 <description>.
        await adminUpstream('the community description change', () => s.groupUpdateDescription(communityId, change.description), COMMUNITY_MISSING);
      }
    },
    async leave(communityId) {
      const s = await onCommunity(communityId);
      await upstream('leaving the community', () => s.communityLeave(communityId), COMMUNITY_MISSING);
    },
    async setPicture(communityId, image) {
      const s = await onCommunity(communityId);
      await adminUpstream('the community picture change', () => s.updateProfilePicture(communityId, image.data), COMMUNITY_MISSING);
    },
    async inviteCode(communityId) {
      const s = await onCommunity(communityId);
      const code = await adminUpstream('the community invite code query', () => s.communityInviteCode(communityId), COMMUNITY_MISSING);
      if (!code) throw new UpstreamError('WhatsApp answered no invite code', { retryable: false });
      return code;
    },
    async removeParticipants(communityId, participants) {
      const s = await onCommunity(communityId);
      return participantResults(await adminUpstream('the participant removal', () => s.communityParticipantsUpdate(communityId, participants, 'remove'), COMMUNITY_MISSING));
    },
    async acceptInvite(code) {
      const s = socket();
      const id = await upstream('the community invite', () => s.communityAcceptInvite(code), INVITE_MISSING);
      if (!id) throw new UpstreamError('WhatsApp did not answer the joined community', { retryable: false });
      return id;
    },
    async inviteInfo(code) {
      const s = socket();
      // The invite's answer is a <group> too (whatsmeow GetGroupInfoFromLink), not the <community> communityGetInviteInfo reads.
      return toInviteInfo(await upstream('invite', () => s.groupGetInviteInfo(code), INVITE_MISSING));
    },
    async joinRequests(communityId) {
      const s = await onCommunity(communityId);
      const list = await adminUpstream('the join request list', () => s.communityRequestParticipantsList(communityId), COMMUNITY_MISSING);
      runtime.groupCache.learnRequesters(list);
      return joinRequests(list);
    },
    async handleJoinRequests(communityId, participants, action) {
      const s = await onCommunity(communityId);
      return participantResults(await adminUpstream('the join request update', () => s.communityRequestParticipantsUpdate(communityId, participants, action), COMMUNITY_MISSING), known);
    },
    async createGroup(communityId, subject, participants) {
      const s = await onCommunity(communityId);
      const meta = await adminUpstream('the community group creation', () => s.communityCreateGroup(subject, participants, communityId), COMMUNITY_MISSING);
      if (!meta) throw new UpstreamError('WhatsApp did not answer the created group', { retryable: false });
      return toGroup(meta);
    },
    async setEphemeral(communityId, expiration) {
      const s = await onCommunity(communityId);
      await adminUpstream('the disappearing-messages setting', () => s.communityToggleEphemeral(communityId, expiration), COMMUNITY_MISSING);
    },
    async setting(communityId, setting) {
      const s = await onCommunity(communityId);
      await adminUpstream('the community setting change', () => s.communitySettingUpdate(communityId, setting), COMMUNITY_MISSING);
    },
    async memberAddMode(communityId, mode) {
      const s = await onCommunity(communityId);
      await adminUpstream('the member-add mode change', () => s.communityMemberAddMode(communityId, mode), COMMUNITY_MISSING);
    },
    async joinApproval(communityId, mode) {
      const s = await onCommunity(communityId);
      await adminUpstream('the join-approval change', () => s.communityJoinApprovalMode(communityId, mode), COMMUNITY_MISSING);
    },
  };
}
