import { CapabilityNotSupportedError, ValidationError, type GroupSetting, type GroupsCapability } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { dataResponse, messageResponse, okResponse, s } from '../http/schema.js';
import { keyParams, urlField } from '../schemas/common.schemas.js';
import {
  groupJidOf, groupParams, MAX_PARTICIPANTS, participantInput, groupSchema, groupSettingField, inviteCodeField, inviteCodeOf, inviteInfoSchema,
  joinRequestActionBody, joinRequestSchema, PARTICIPANT_RESULTS_DOC, participantJids, participantResultsResponse, participantSchema, participantsBody,
} from '../schemas/group.schemas.js';
import { changeAndAnswer, joinAnswer, setPictureAndAnswer } from './group-family.js';
import { connectedCapability } from './instance-guards.js';

type Scope = InstanceRuntime;
type GroupParams = { groupJid: string };
type Participants = { participants: (string | number)[] };
const tag = 'Groups';

const params = groupParams('groupJid');
const ADMIN = 'Only group admins may do this (403 `not_admin`).';
const UNKNOWN = 'A group the instance is not a member of: 404 `group_not_found`.';

/** Spec 4.10: groups, their members, roles, join requests, invites and pictures. */
export function groupRoutes(ctx: ServerContext): RouteDefinition[] {
  const groups = (rt: Scope) => connectedCapability(rt, 'groups');
  const extension = <K extends 'acceptInvite' | 'joinApproval'>(rt: Scope, name: K): NonNullable<GroupsCapability[K]> => {
    const capability = groups(rt);
    const method = capability[name];
    if (!method) throw new CapabilityNotSupportedError(rt.main.channel, `groups.${name}`);
    return method.bind(capability) as NonNullable<GroupsCapability[K]>;
  };
  const changed = changeAndAnswer(groups);
  const setPicture = setPictureAndAnswer(ctx, groups);
  return [
    defineRoute<unknown, unknown, unknown, Scope>({
      method: 'get', path: '/{key}/groups', operationId: 'listGroups', tag, auth: 'instance', params: keyParams,
      summary: 'Groups the instance is a member of', response: dataResponse(s.array(groupSchema)), errors: [409, 422],
      handler: async ({ scope }) => ({ data: await groups(scope).list() }),
    }),
    defineRoute<GroupParams, unknown, unknown, Scope>({
      method: 'get', path: '/{key}/groups/{groupJid}', operationId: 'getGroup', tag, auth: 'instance', params,
      summary: 'One group', description: UNKNOWN, response: dataResponse(groupSchema), errors: [409, 422],
      handler: async ({ scope, params: p }) => ({ data: await groups(scope).get(groupJidOf(scope.addressing, p.groupJid)) }),
    }),
    defineRoute<unknown, unknown, { name: string; participants: (string | number)[] }, Scope>({
      method: 'post', idempotent: true, path: '/{key}/groups', operationId: 'createGroup', tag, auth: 'instance', params: keyParams,
      summary: 'Create a group',
      description: 'The instance becomes its `superadmin`. Answers `data`: the new group. Numbers the channel cannot add (not on the network) are left out of `participants`.',
      body: s.object({ name: s.text(100, { description: 'The group subject.' }), participants: s.array(participantInput, { maxItems: MAX_PARTICIPANTS }) }, ['name', 'participants']),
      response: dataResponse(groupSchema), errors: [409, 422],
      handler: async ({ scope, body }) => {
        const jids = participantJids(scope.addressing, body.participants);
        return { data: await groups(scope).create(body.name, jids) };
      },
    }),
    defineRoute<GroupParams, unknown, { name?: string; description?: string }, Scope>({
      method: 'put', path: '/{key}/groups/{groupJid}', operationId: 'updateGroup', tag, auth: 'instance', params,
      summary: 'Change the subject and/or description',
      description: `Answers \`data\`: the updated group. A locked group accepts this from admins only (403 \`not_admin\`). ${UNKNOWN}`,
      body: s.object({ name: s.text(100), description: s.string({ maxLength: 2048, description: 'Empty clears it.' }) }),
      response: dataResponse(groupSchema), errors: [403, 409, 422],
      handler: async ({ scope, params: p, body }) => {
        if (body.name === undefined && body.description === undefined) throw new ValidationError('body must set name or description');
        return changed(scope, p.groupJid, (g, jid) => g.update(jid, { subject: body.name, description: body.description }));
      },
    }),
    defineRoute<GroupParams, { setting: GroupSetting }, unknown, Scope>({
      method: 'patch', path: '/{key}/groups/{groupJid}', operationId: 'changeGroupSetting', tag, auth: 'instance', params,
      summary: 'Change a setting',
      description: `\`announcement\`: only admins send; \`not_announcement\`: everyone sends; \`locked\`: only admins edit the info; \`unlocked\`: everyone edits it. Answers \`data\`: the updated group. ${ADMIN} ${UNKNOWN}`,
      query: s.object({ setting: groupSettingField }, ['setting']),
      response: dataResponse(groupSchema), errors: [403, 409, 422],
      handler: async ({ scope, params: p, query }) => changed(scope, p.groupJid, (g, jid) => g.setting(jid, query.setting)),
    }),
    defineRoute<GroupParams, unknown, unknown, Scope>({
      method: 'delete', path: '/{key}/groups/{groupJid}', operationId: 'leaveGroup', tag, auth: 'instance', params,
      summary: 'Leave the group', description: `Answers \`message\`. ${UNKNOWN}`, response: messageResponse, errors: [409, 422],
      handler: async ({ scope, params: p }) => {
        const jid = groupJidOf(scope.addressing, p.groupJid);
        await groups(scope).leave(jid);
        return { message: `left group ${jid}` };
      },
    }),
    defineRoute<GroupParams, unknown, unknown, Scope>({
      method: 'get', path: '/{key}/groups/{groupJid}/members', operationId: 'listGroupMembers', tag, auth: 'instance', params,
      summary: 'Members and their roles', description: `Answers \`data\`: the participants (spec 2.7). ${UNKNOWN}`,
      response: dataResponse(s.array(participantSchema)), errors: [409, 422],
      handler: async ({ scope, params: p }) => ({ data: (await groups(scope).get(groupJidOf(scope.addressing, p.groupJid))).participants }),
    }),
    defineRoute<GroupParams, unknown, Participants, Scope>({
      method: 'post', path: '/{key}/groups/{groupJid}/participants', operationId: 'addGroupParticipants', tag, auth: 'instance', params,
      summary: 'Add participants',
      description: `${PARTICIPANT_RESULTS_DOC} Admins only unless the group lets every member add (403 \`not_admin\`). ${UNKNOWN}`,
      body: participantsBody, response: participantResultsResponse, errors: [403, 409, 422],
      handler: async ({ scope, params: p, body }) => {
        const jids = participantJids(scope.addressing, body.participants);
        return { data: await groups(scope).addParticipants(groupJidOf(scope.addressing, p.groupJid), jids) };
      },
    }),
    defineRoute<GroupParams, unknown, Participants, Scope>({
      method: 'delete', path: '/{key}/groups/{groupJid}/participants', operationId: 'removeGroupParticipants', tag, auth: 'instance', params,
      summary: 'Remove participants', description: `${PARTICIPANT_RESULTS_DOC} The creator cannot be removed (\`403\`). ${ADMIN} ${UNKNOWN}`,
      body: participantsBody, response: participantResultsResponse, errors: [403, 409, 422],
      handler: async ({ scope, params: p, body }) => {
        const jids = participantJids(scope.addressing, body.participants);
        return { data: await groups(scope).removeParticipants(groupJidOf(scope.addressing, p.groupJid), jids) };
      },
    }),
    defineRoute<GroupParams, { action: 'promote' | 'demote' }, Participants, Scope>({
      method: 'patch', path: '/{key}/groups/{groupJid}/role', operationId: 'changeGroupRole', tag, auth: 'instance', params,
      summary: 'Promote members to admin, or demote admins',
      description: `\`action\` = \`promote\` makes them \`admin\`; \`demote\` (Parley's value for demotion, which the spec leaves open) makes them regular members (\`admin\` null). The creator stays \`superadmin\` (\`403\` on demote). ${PARTICIPANT_RESULTS_DOC} ${ADMIN} ${UNKNOWN}`,
      query: s.object({ action: s.enum(['promote', 'demote']) }, ['action']),
      body: participantsBody, response: participantResultsResponse, errors: [403, 409, 422],
      handler: async ({ scope, params: p, query, body }) => {
        const jids = participantJids(scope.addressing, body.participants);
        const capability = groups(scope);
        const jid = groupJidOf(scope.addressing, p.groupJid);
        return { data: await (query.action === 'promote' ? capability.promote(jid, jids) : capability.demote(jid, jids)) };
      },
    }),
    defineRoute<GroupParams, unknown, unknown, Scope>({
      method: 'get', path: '/{key}/groups/{groupJid}/request_participants_list', operationId: 'listGroupJoinRequests', tag, auth: 'instance', params,
      summary: 'Pending join requests', description: `Answers \`data\`: the requests (\`jid\`, \`requestTime\`, \`requestMethod\`). ${ADMIN} ${UNKNOWN}`,
      response: dataResponse(s.array(joinRequestSchema)), errors: [403, 409, 422],
      handler: async ({ scope, params: p }) => ({ data: await groups(scope).joinRequests(groupJidOf(scope.addressing, p.groupJid)) }),
    }),
    defineRoute<GroupParams, unknown, Participants & { action: 'approve' | 'reject' }, Scope>({
      method: 'put', path: '/{key}/groups/{groupJid}/request_participants_list', operationId: 'handleGroupJoinRequests', tag, auth: 'instance', params,
      summary: 'Approve or reject join requests',
      description: `\`approve\` makes the requesters members; \`reject\` drops their requests. ${PARTICIPANT_RESULTS_DOC} ${ADMIN} ${UNKNOWN}`,
      body: joinRequestActionBody,
      response: participantResultsResponse, errors: [403, 409, 422],
      handler: async ({ scope, params: p, body }) => {
        const jids = participantJids(scope.addressing, body.participants);
        return { data: await groups(scope).handleJoinRequests(groupJidOf(scope.addressing, p.groupJid), jids, body.action) };
      },
    }),
    defineRoute<GroupParams, unknown, unknown, Scope>({
      method: 'get', path: '/{key}/groups/{groupJid}/invite', operationId: 'getGroupInviteCode', tag, auth: 'instance', params,
      summary: 'The group\'s invite code', description: `${ADMIN} ${UNKNOWN}`,
      response: okResponse({ inviteCode: s.string() }), errors: [403, 409, 422],
      handler: async ({ scope, params: p }) => ({ inviteCode: await groups(scope).inviteCode(groupJidOf(scope.addressing, p.groupJid)) }),
    }),
    defineRoute<unknown, { code: string }, unknown, Scope>({
      method: 'get', path: '/{key}/groups/invite/info', operationId: 'getGroupInviteInfo', tag, auth: 'instance', params: keyParams,
      summary: 'What a group invite code leads to',
      description: 'Answers `data`: `id`, `subject`, `owner`, `desc`, `size`, `creation`, `isCommunity`. Unknown code: 404 `invite_not_found`.',
      query: s.object({ code: inviteCodeField }, ['code']),
      response: dataResponse(inviteInfoSchema), errors: [409, 422],
      handler: async ({ scope, query }) => ({ data: await groups(scope).inviteInfo(inviteCodeOf(query.code)) }),
    }),
    defineRoute<unknown, unknown, { code: string }, Scope>({
      method: 'post', path: '/{key}/groups/invite/accept', operationId: 'acceptGroupInvite', tag, auth: 'instance', params: keyParams,
      summary: 'Join a group through its invite code (extension)',
      description: 'Answers `data`: the group, once joined. When the group requires admin approval, the join becomes a pending request and the answer is `message` instead. Unknown code: 404 `invite_not_found`.',
      body: s.object({ code: inviteCodeField }, ['code']),
      response: { anyOf: [dataResponse(groupSchema), messageResponse] }, errors: [409, 422],
      handler: async ({ scope, body }) => joinAnswer(await extension(scope, 'acceptInvite')(inviteCodeOf(body.code)), () => groups(scope).list()),
    }),
    defineRoute<GroupParams, unknown, { mode: 'on' | 'off' }, Scope>({
      method: 'patch', path: '/{key}/groups/{groupJid}/join-approval', operationId: 'setGroupJoinApproval', tag, auth: 'instance', params,
      summary: 'Require admin approval of new members (extension)',
      description: `\`on\`: joining through the invite code becomes a join request. Answers \`data\`: the updated group. ${ADMIN} ${UNKNOWN}`,
      body: s.object({ mode: s.enum(['on', 'off']) }, ['mode']),
      response: dataResponse(groupSchema), errors: [403, 409, 422],
      handler: async ({ scope, params: p, body }) => changed(scope, p.groupJid, (_g, jid) => extension(scope, 'joinApproval')(jid, body.mode)),
    }),
    defineRoute<GroupParams, unknown, { url: string }, Scope>({
      method: 'put', path: '/{key}/groups/{groupJid}/picture', operationId: 'setGroupPicture', tag, auth: 'instance', params,
      summary: 'Set the group picture from a URL or data URI',
      description: `Answers \`data\`: the updated group (\`imgUrl\` where the channel gives it). A locked group accepts this from admins only (403 \`not_admin\`). ${UNKNOWN}`,
      body: s.object({ url: urlField }, ['url']), bodyLimit: 'media',
      response: dataResponse(groupSchema), errors: [403, 409, 413, 422],
      handler: async ({ scope, params: p, body }) => setPicture(scope, p.groupJid, body.url),
    }),
    defineRoute<GroupParams, unknown, unknown, Scope>({
      method: 'delete', path: '/{key}/groups/{groupJid}/picture', operationId: 'removeGroupPicture', tag, auth: 'instance', params,
      summary: 'Remove the group picture',
      description: `Answers \`data\`: the updated group. A locked group accepts this from admins only (403 \`not_admin\`). ${UNKNOWN}`,
      response: dataResponse(groupSchema), errors: [403, 409, 422],
      handler: async ({ scope, params: p }) => changed(scope, p.groupJid, (g, jid) => g.removePicture(jid)),
    }),
  ];
}
