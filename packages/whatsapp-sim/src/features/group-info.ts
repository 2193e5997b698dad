import { SimError } from '../network/errors.js';
import type { Account } from '../network/model.js';
import type { Group, Groups } from './groups.js';

export const GROUP_SETTINGS = ['announcement', 'not_announcement', 'locked', 'unlocked'] as const;
export type GroupSetting = (typeof GROUP_SETTINGS)[number];

/** What a phone changes of a group's info: its subject, its description (null removes it), a setting. */
export interface GroupInfoChange {
  subject?: string;
  description?: string | null;
  setting?: GroupSetting;
}

/**
 * A member's phone changes the group's info, with the rules the server applies to clients' `w:g2` iqs
 * (group-iq.ts): subject and description by any member, or admins only once `locked`; settings by admins.
 * Each change reaches the members' companions as a `w:gp2` notification. Checked whole before anything
 * changes (400 `invalid_change`).
 */
export function changeGroupInfo(groups: Groups, actor: Account, jid: string, change: GroupInfoChange): Group {
  const { subject, description, setting } = change ?? {};
  if (subject === undefined && description === undefined && setting === undefined) {
    throw new SimError(400, 'invalid_change', 'give subject, description or setting', {});
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
  const group = subject !== undefined || description !== undefined ? groups.asEditor(jid, actor) : groups.asMember(jid, actor);
  if (setting !== undefined) groups.asAdmin(jid, actor);
  if (subject !== undefined) groups.setSubject(group, actor, subject);
  if (description !== undefined) groups.setDescription(group, actor, description || undefined, undefined);
  if (setting !== undefined) groups.setting(group, actor, setting);
  return group;
}
