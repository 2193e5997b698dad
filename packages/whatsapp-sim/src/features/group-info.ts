import { SimError } from '../network/errors.js';
import type { Account } from '../network/model.js';
import { GROUP_SETTINGS, MEMBER_ADD_MODES, type Group, type GroupSetting, type Groups, type MemberAddMode } from './groups.js';

export { GROUP_SETTINGS, type GroupSetting } from './groups.js';

/** What a phone changes of a group's info: its subject, its description (null removes it), a setting, who adds members. */
export interface GroupInfoChange {
  subject?: string;
  description?: string | null;
  setting?: GroupSetting;
  memberAddMode?: MemberAddMode;
}

/**
 * A member's phone changes the group's info, with the rules the server applies to clients' `w:g2` iqs
 * (group-iq.ts): subject and description by any member, or admins only once `locked`; settings and the
 * member-add mode by admins.
 * Each change reaches the members' companions as a `w:gp2` notification. Checked whole before anything
 * changes (400 `invalid_change`).
 */
export function changeGroupInfo(groups: Groups, actor: Account, jid: string, change: GroupInfoChange): Group {
  const { subject, description, setting, memberAddMode } = change ?? {};
  if (subject === undefined && description === undefined && setting === undefined && memberAddMode === undefined) {
    throw new SimError(400, 'invalid_change', 'give subject, description, setting or memberAddMode', { field: ['subject', 'description', 'setting', 'memberAddMode'] });
  }
  if (subject !== undefined && (typeof subject !== 'string' || subject.length < 1 || subject.length > 100)) {
    throw new SimError(400, 'invalid_change', 'subject must be 1 to 100 characters', { field: 'subject' });
  }
  if (description !== undefined && description !== null && (typeof description !== 'string' || description.length > 2048)) {
    throw new SimError(400, 'invalid_change', 'description must be a string of at most 2048 characters, or null', { field: 'description' });
  }
  if (setting !== undefined && !(GROUP_SETTINGS as readonly string[]).includes(setting)) {
    throw new SimError(400, 'invalid_change', `setting must be one of ${GROUP_SETTINGS.join(', ')}`, { field: 'setting' });
  }
  if (memberAddMode !== undefined && !MEMBER_ADD_MODES.includes(memberAddMode)) {
    throw new SimError(400, 'invalid_change', `memberAddMode must be one of ${MEMBER_ADD_MODES.join(', ')}`, { field: 'memberAddMode' });
  }
  const group = subject !== undefined || description !== undefined ? groups.asEditor(jid, actor) : groups.asMember(jid, actor);
  if (setting !== undefined || memberAddMode !== undefined) groups.asAdmin(jid, actor);
  if (setting?.endsWith('sub_group_creation') && !group.parent) {
    throw new SimError(400, 'invalid_change', `${setting} is a community's setting`, { field: 'setting' });
  }
  if (subject !== undefined) groups.setSubject(group, actor, subject);
  if (description !== undefined) groups.setDescription(group, actor, description || undefined, undefined);
  if (setting !== undefined) groups.setting(group, actor, setting);
  if (memberAddMode !== undefined) groups.setMemberAddMode(group, actor, memberAddMode);
  return group;
}
