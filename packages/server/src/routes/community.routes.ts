import { ValidationError, type GroupSetting } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { dataResponse, messageResponse, okResponse, s } from '../http/schema.js';
import { keyParams, urlField } from '../schemas/common.schemas.js';
import {
  communitySchema, groupJidOf, groupParams, groupSchema, groupSettingField, inviteCodeField, inviteCodeOf, inviteInfoSchema, joinRequestActionBody,
  joinRequestSchema, MAX_PARTICIPANTS, PARTICIPANT_RESULTS_DOC, participantInput, participantJids, participantResultsResponse,
  participantsBody,
} from '../schemas/group.schemas.js';
import { changeAndAnswer, joinAnswer, setPictureAndAnswer } from './group-family.js';
import { connectedCapability } from './instance-guards.js';

type Scope = InstanceRuntime;
type CommunityParams = { communityId: string };
const tag = 'Communities';

const params = groupParams('communityId');
/** Disappearing-message timers WhatsApp offers: off, 24 hours, 7 days, 90 days. */
export const EPHEMERAL_DURATIONS = [0, 86_400, 604_800, 7_776_000] as const;
const ADMIN = 'Only community admins may do this (403 `not_admin`).';
const UNKNOWN = 'A community the instance is not a member of: 404 `community_not_found`.';
const UPDATED = `Answers \`data\`: the updated community. ${ADMIN} ${UNKNOWN}`;

/** Spec 4.11: communities, their members, invites, join requests, linked groups and settings. */
export function communityRoutes(ctx: ServerContext): RouteDefinition[] {
  const communities = (rt: Scope) => connectedCapability(rt, 'communities');
  const changed = changeAndAnswer(communities);
  const setPicture = setPictureAndAnswer(ctx, communities);
  return [
    defineRoute<unknown, unknown, unknown, Scope>({
      method: 'get', path: '/{key}/community', operationId: 'listCommunities', tag, auth: 'instance', params: keyParams,
      summary: 'Communities the instance is a member of', response: dataResponse(s.array(communitySchema)), errors: [409, 422],
      handler: async ({ scope }) => ({ data: await communities(scope).list() }),
    }),
    defineRoute<CommunityParams, unknown, unknown, Scope>({
      method: 'get', path: '/{key}/community/{communityId}', operationId: 'getCommunity', tag, auth: 'instance', params,
      summary: 'One community', description: `Answers \`data\`: the community (spec 2.8, with its linked \`groups\`). ${UNKNOWN}`,
      response: dataResponse(communitySchema), errors: [409, 422],
      handler: async ({ scope, params: p }) => ({ data: await communities(scope).get(groupJidOf(scope.addressing, p.communityId)) }),
    }),
    defineRoute<unknown, unknown, { name: string; subject?: string }, Scope>({
      method: 'post', idempotent: true, path: '/{key}/community', operationId: 'createCommunity', tag, auth: 'instance', params: keyParams,
      summary: 'Create a community',
      description: '`name` is the community\'s title (its `name` and `subject`); `subject`, the spec\'s second field, is its description text. '
        + 'The instance becomes its `superadmin`. Answers `data`: the new community.',
      body: s.object({ name: s.text(100), subject: s.string({ maxLength: 2048, description: 'The community description.' }) }, ['name']),
      response: dataResponse(communitySchema), errors: [409, 422],
      handler: async ({ scope, body }) => ({ data: await communities(scope).create(body.name, body.subject ?? '') }),
    }),
    defineRoute<CommunityParams, unknown, { subject?: string; description?: string }, Scope>({
      method: 'put', path: '/{key}/community/{communityId}', operationId: 'updateCommunity', tag, auth: 'instance', params,
      summary: 'Change the name (`subject`) and/or the description', description: UPDATED,
      body: s.object({ subject: s.text(100), description: s.string({ maxLength: 2048, description: 'Empty clears it.' }) }),
      response: dataResponse(communitySchema), errors: [403, 409, 422],
      handler: async ({ scope, params: p, body }) => {
        if (body.subject === undefined && body.description === undefined) throw new ValidationError('body must set subject or description');
        return changed(scope, p.communityId, (c, jid) => c.update(jid, { subject: body.subject, description: body.description }));
      },
    }),
    defineRoute<CommunityParams, unknown, unknown, Scope>({
      method: 'delete', path: '/{key}/community/{communityId}', operationId: 'leaveCommunity', tag, auth: 'instance', params,
      summary: 'Leave the community', description: `Also leaves its linked groups. Answers \`message\`. ${UNKNOWN}`,
      response: messageResponse, errors: [409, 422],
      handler: async ({ scope, params: p }) => {
        const jid = groupJidOf(scope.addressing, p.communityId);
        await communities(scope).leave(jid);
        return { message: `left community ${jid}` };
      },
    }),
    defineRoute<CommunityParams, unknown, { url: string }, Scope>({
      method: 'put', path: '/{key}/community/{communityId}/picture', operationId: 'setCommunityPicture', tag, auth: 'instance', params,
      summary: 'Set the community picture from a URL or data URI', description: `Answers \`data\`: the updated community (\`imgUrl\` where the channel gives it). ${ADMIN} ${UNKNOWN}`,
      body: s.object({ url: urlField }, ['url']), bodyLimit: 'media',
      response: dataResponse(communitySchema), errors: [403, 409, 413, 422],
      handler: async ({ scope, params: p, body }) => setPicture(scope, p.communityId, body.url),
    }),
    defineRoute<CommunityParams, unknown, unknown, Scope>({
      method: 'post', path: '/{key}/community/{communityId}/invite', operationId: 'getCommunityInviteCode', tag, auth: 'instance', params,
      summary: 'The community\'s invite code', description: `Answers \`inviteCode\`, as GET /{key}/groups/{groupJid}/invite does. ${ADMIN} ${UNKNOWN}`,
      response: okResponse({ inviteCode: s.string() }), errors: [403, 409, 422],
      handler: async ({ scope, params: p }) => ({ inviteCode: await communities(scope).inviteCode(groupJidOf(scope.addressing, p.communityId)) }),
    }),
    defineRoute<CommunityParams, unknown, { participants: (string | number)[] }, Scope>({
      method: 'delete', path: '/{key}/community/{communityId}/participants', operationId: 'removeCommunityParticipants', tag, auth: 'instance', params,
      summary: 'Remove members', description: `They also leave its linked groups; the creator cannot be removed (\`403\`). ${PARTICIPANT_RESULTS_DOC} ${ADMIN} ${UNKNOWN}`,
      body: participantsBody,
      response: participantResultsResponse, errors: [403, 409, 422],
      handler: async ({ scope, params: p, body }) => {
        const jids = participantJids(scope.addressing, body.participants);
        return { data: await communities(scope).removeParticipants(groupJidOf(scope.addressing, p.communityId), jids) };
      },
    }),
    defineRoute<unknown, unknown, { code: string }, Scope>({
      method: 'post', path: '/{key}/community/invite/accept', operationId: 'acceptCommunityInvite', tag, auth: 'instance', params: keyParams,
      summary: 'Join a community through its invite code',
      description: 'Answers `data`: the community, once joined. When the community requires admin approval, the join becomes a pending request and the answer is `message` instead. Unknown code: 404 `invite_not_found`.',
      body: s.object({ code: inviteCodeField }, ['code']),
      response: { anyOf: [dataResponse(communitySchema), messageResponse] }, errors: [409, 422],
      handler: async ({ scope, body }) => {
        const capability = communities(scope);
        return joinAnswer(await capability.acceptInvite(inviteCodeOf(body.code)), () => capability.list());
      },
    }),
    defineRoute<unknown, { code: string }, unknown, Scope>({
      method: 'get', path: '/{key}/community/invite/info', operationId: 'getCommunityInviteInfo', tag, auth: 'instance', params: keyParams,
      summary: 'What a community invite code leads to',
      description: 'Answers `data`: `id`, `subject`, `owner`, `desc`, `size`, `creation`, `isCommunity`. Unknown code: 404 `invite_not_found`.',
      query: s.object({ code: inviteCodeField }, ['code']),
      response: dataResponse(inviteInfoSchema), errors: [409, 422],
      handler: async ({ scope, query }) => ({ data: await communities(scope).inviteInfo(inviteCodeOf(query.code)) }),
    }),
    defineRoute<CommunityParams, unknown, unknown, Scope>({
      method: 'get', path: '/{key}/community/{communityId}/request_participants_list', operationId: 'listCommunityJoinRequests', tag, auth: 'instance', params,
      summary: 'Pending join requests', description: `Answers \`data\`: the requests (\`jid\`, \`requestTime\`, \`requestMethod\`). ${ADMIN} ${UNKNOWN}`,
      response: dataResponse(s.array(joinRequestSchema)), errors: [403, 409, 422],
      handler: async ({ scope, params: p }) => ({ data: await communities(scope).joinRequests(groupJidOf(scope.addressing, p.communityId)) }),
    }),
    defineRoute<CommunityParams, unknown, { participants: (string | number)[]; action: 'approve' | 'reject' }, Scope>({
      method: 'put', path: '/{key}/community/{communityId}/request_participants_list', operationId: 'handleCommunityJoinRequests', tag, auth: 'instance', params,
      summary: 'Approve or reject join requests',
      description: `\`approve\` makes the requesters members; \`reject\` drops their requests. ${PARTICIPANT_RESULTS_DOC} ${ADMIN} ${UNKNOWN}`,
      body: joinRequestActionBody,
      response: participantResultsResponse, errors: [403, 409, 422],
      handler: async ({ scope, params: p, body }) => {
        const jids = participantJids(scope.addressing, body.participants);
        return { data: await communities(scope).handleJoinRequests(groupJidOf(scope.addressing, p.communityId), jids, body.action) };
      },
    }),
    defineRoute<CommunityParams, unknown, { subject: string; participants: (string | number)[] }, Scope>({
      method: 'post', idempotent: true, path: '/{key}/community/{communityId}/group', operationId: 'createCommunityGroup', tag, auth: 'instance', params,
      summary: 'Create a group linked to the community',
      description: `The instance becomes the group's \`superadmin\`; its members join the community. Answers \`data\`: the new group (\`linkedParent\` is the community). ${ADMIN} ${UNKNOWN}`,
      body: s.object({ subject: s.text(100), participants: s.array(participantInput, { maxItems: MAX_PARTICIPANTS }) }, ['subject', 'participants']),
      response: dataResponse(groupSchema), errors: [403, 409, 422],
      handler: async ({ scope, params: p, body }) => {
        const jids = participantJids(scope.addressing, body.participants);
        return { data: await communities(scope).createGroup(groupJidOf(scope.addressing, p.communityId), body.subject, jids) };
      },
    }),
    defineRoute<CommunityParams, unknown, { expiration: number }, Scope>({
      method: 'post', path: '/{key}/community/{communityId}/ephemeral', operationId: 'setCommunityEphemeral', tag, auth: 'instance', params,
      summary: 'Disappearing-messages timer',
      description: `\`expiration\` in seconds: 0 (off), 86400 (24 h), 604800 (7 days) or 7776000 (90 days), the timers WhatsApp offers. ${UPDATED}`,
      body: s.object({ expiration: s.enum(EPHEMERAL_DURATIONS) }, ['expiration']),
      response: dataResponse(communitySchema), errors: [403, 409, 422],
      handler: async ({ scope, params: p, body }) => changed(scope, p.communityId, (c, jid) => c.setEphemeral(jid, body.expiration)),
    }),
    defineRoute<CommunityParams, unknown, { setting: GroupSetting }, Scope>({
      method: 'patch', path: '/{key}/community/{communityId}/settings', operationId: 'changeCommunitySetting', tag, auth: 'instance', params,
      summary: 'Change a setting',
      description: `\`announcement\`/\`not_announcement\`: only admins send, or everyone; \`locked\`/\`unlocked\`: only admins edit the info, or everyone. ${UPDATED}`,
      body: s.object({ setting: groupSettingField }, ['setting']),
      response: dataResponse(communitySchema), errors: [403, 409, 422],
      handler: async ({ scope, params: p, body }) => changed(scope, p.communityId, (c, jid) => c.setting(jid, body.setting)),
    }),
    defineRoute<CommunityParams, unknown, { mode: 'admin_add' | 'all_member_add' }, Scope>({
      method: 'patch', path: '/{key}/community/{communityId}/member-add-mode', operationId: 'setCommunityMemberAddMode', tag, auth: 'instance', params,
      summary: 'Who may add members', description: `\`admin_add\`: admins only; \`all_member_add\`: every member. ${UPDATED}`,
      body: s.object({ mode: s.enum(['admin_add', 'all_member_add']) }, ['mode']),
      response: dataResponse(communitySchema), errors: [403, 409, 422],
      handler: async ({ scope, params: p, body }) => changed(scope, p.communityId, (c, jid) => c.memberAddMode(jid, body.mode)),
    }),
    defineRoute<CommunityParams, unknown, { mode: 'on' | 'off' }, Scope>({
      method: 'patch', path: '/{key}/community/{communityId}/join-approval', operationId: 'setCommunityJoinApproval', tag, auth: 'instance', params,
      summary: 'Require admin approval of new members', description: `\`on\`: joining through the invite code becomes a join request. ${UPDATED}`,
      body: s.object({ mode: s.enum(['on', 'off']) }, ['mode']),
      response: dataResponse(communitySchema), errors: [403, 409, 422],
      handler: async ({ scope, params: p, body }) => changed(scope, p.communityId, (c, jid) => c.joinApproval(jid, body.mode)),
    }),
  ];
}
