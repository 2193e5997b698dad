import { groupAddress, ValidationError, type ChannelAddressing } from '@parley/core';
import { dataResponse, s } from '../http/schema.js';
import { personAddress } from '../routes/instance-guards.js';
import { channelSlots } from './channel-slots.js';
import { keyAnd } from './common.schemas.js';

/** Most members a participant list carries in one call (WhatsApp's group size limit). */
export const MAX_PARTICIPANTS = 1024;

/** A group member (spec 2.7); `admin` is `superadmin`, `admin` or null. */
export const participantSchema = s.openObject({
  id: s.string({ description: 'Member JID.' }),
  admin: s.nullable(s.enum(['superadmin', 'admin'])),
}, ['id', 'admin']);

const addModeSchema = s.enum(['admin_add', 'all_member_add']);

/** The group of spec 2.7 plus the settings WhatsApp reports (extensions). */
export const groupSchema = s.openObject({
  id: s.string(), subject: s.string(), owner: s.string(), creation: s.integer({ description: 'Unix seconds.' }), desc: s.string(),
  participants: s.array(participantSchema),
  announce: s.boolean({ description: 'Extension: only admins send messages (`announcement`).' }),
  restrict: s.boolean({ description: 'Extension: only admins edit the group info (`locked`).' }),
  ephemeralDuration: s.integer({ description: 'Extension: disappearing-messages timer in seconds.' }),
  linkedParent: s.string({ description: 'Extension: the community the group is linked to.' }),
  joinApprovalMode: s.boolean({ description: 'Extension: admins approve new members.' }),
  memberAddMode: addModeSchema,
  imgUrl: s.string({ description: 'Extension: picture URL, when set.' }),
}, ['id', 'subject', 'owner', 'creation', 'desc', 'participants']);

/** The community of spec 2.8 plus its linked groups and settings (extensions). */
export const communitySchema = s.openObject({
  id: s.string(), name: s.string(), subject: s.string(), description: s.string(), participants: s.array(participantSchema),
  owner: s.string(), creation: s.integer(),
  groups: s.array(s.string(), { description: 'Extension: JIDs of the linked groups.' }),
  announce: s.boolean(), restrict: s.boolean(), ephemeralDuration: s.integer(), memberAddMode: addModeSchema, joinApprovalMode: s.boolean(),
  imgUrl: s.string(),
}, ['id', 'name', 'subject', 'description', 'participants']);

/** Outcome of a participant change, one per participant given, in order. */
export const participantResultSchema = s.openObject({
  jid: s.string({ description: 'The participant as given (JID form).' }),
  status: s.string({ description: '`200` done; `403` not allowed (the creator, or an add the person\'s privacy settings refuse); `404` not a member / not on the network / no request; `409` already a member; `419` the group is full.' }),
  addRequest: s.openObject({
    code: s.string({ description: 'The invitation code.' }),
    expiration: s.integer({ description: 'Unix seconds when the invitation expires.' }),
  }, ['code', 'expiration'], { description: 'WhatsApp: an add the person\'s privacy settings refuse (`403`) comes with the invitation WhatsApp offers instead.' }),
}, ['jid', 'status']);

/** The answer of a participant change: `data`, one result per participant. */
export const participantResultsResponse = dataResponse(s.array(participantResultSchema));

/** How {@link participantResultsResponse} reads, for route descriptions. */
export const PARTICIPANT_RESULTS_DOC = 'Answers `data`: one `{jid, status}` per participant, in order (`200` done; other codes say why that participant was not changed).';

/** A pending join request. */
export const joinRequestSchema = s.openObject({
  jid: s.string(), requestTime: s.integer({ description: 'Unix seconds.' }), requestMethod: s.string(),
}, ['jid', 'requestTime']);

/** What an invite code leads to. */
export const inviteInfoSchema = s.openObject({
  id: s.string(), subject: s.string(), owner: s.string(), desc: s.string(), size: s.integer({ description: 'Members.' }),
  creation: s.integer(), isCommunity: s.boolean(),
}, ['id', 'subject', 'size']);

/** A participant as callers give it: a phone number (digits, as a string or a JSON integer) or a JID. */
export const participantInput = {
  anyOf: [s.string({ minLength: 1, maxLength: 128 }), s.integer({ minimum: 100000, maximum: 999999999999999 })],
  description: 'Phone number with country code (a string of digits, or a JSON integer), or a contact JID (`@s.whatsapp.net`, `@lid`).',
};

/** `participants`: 1 to 1024 numbers or JIDs. */
export const participantsField = s.array(participantInput, { minItems: 1, maxItems: MAX_PARTICIPANTS });

/** A body naming participants. */
export const participantsBody = s.object({ participants: participantsField }, ['participants']);

/** The body of approving or rejecting join requests. */
export const joinRequestActionBody = s.object({ participants: participantsField, action: s.enum(['approve', 'reject']) }, ['participants', 'action']);

/** Participants as the main channel addresses them (JIDs); a group, broadcast or malformed entry is a 400 naming `body.participants[i]`. */
export function participantJids(addressing: ChannelAddressing, participants: (string | number)[], field = 'body.participants'): string[] {
  return participants.map((p, i) => personAddress(addressing, String(p), `${field}[${i}]`));
}

/** An invite code, or the whole `https://chat.whatsapp.com/<code>` link. */
export const inviteCodeField = s.string({
  pattern: '^(https://chat\\.whatsapp\\.com/)?[A-Za-z0-9_-]{1,64}$', examples: ['AbCdEfGhIjKlMnOpQrStUv'], description: 'Invite code, or the chat.whatsapp.com invite link.',
});

/** The bare code of {@link inviteCodeField}. */
export function inviteCodeOf(value: string): string {
  return value.replace(/^https:\/\/chat\.whatsapp\.com\//, '');
}

/**
 * Path parameters with a group (or community) id, in the form the main channels' addressing
 * declares (`groups.schema`; WhatsApp: a group JID or its digits).
 */
export function groupParams(name: string) {
  return keyAnd({ [name]: channelSlots.groupId() });
}

/**
 * The group id of a path parameter or body member accepted by {@link groupParams} (or
 * `channelSlots.groupId()`), in the channel's form (WhatsApp: the JID). With `field`, a value the
 * channel's `groups.schema` refuses is a 400 naming it: the schema states that rule only when every
 * main channel of the server states the same one.
 */
export function groupJidOf(addressing: ChannelAddressing, value: string, field?: string): string {
  const rule = addressing.groups?.schema;
  if (field !== undefined && rule && !new RegExp(rule.pattern, 'u').test(value)) {
    throw new ValidationError(`${field} must be ${lowerFirst(rule.description)}`, { field });
  }
  return groupAddress(addressing, value);
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}

/** The setting values of spec 4.10 PATCH and 4.11 settings. */
export const groupSettingField = s.enum(['announcement', 'not_announcement', 'locked', 'unlocked']);
