import type { Group } from '@parley/core';
import { isJidGroup, proto, type GroupMetadata, type WAMessage } from '@whiskeysockets/baileys';
import { groupChange } from '../mapping/resources.js';
import type { BoundedCache } from '../util/bounded-cache.js';

type GroupUpdate = Partial<GroupMetadata> & { id: string };
type Change = Partial<Group> & { id: string };

const Stub = proto.WebMessageInfo.StubType;
const on = (value: string | undefined): boolean => value === 'true' || value === 'on';

/**
 * The group fields a notification stub announces, read as Baileys' Utils/process-message.js reads them
 * (subject, description, who sends, who edits the info, who adds members, join approval).
 */
const ANNOUNCED: Partial<Record<number, (params: string[]) => Partial<GroupMetadata>>> = {
  [Stub.GROUP_CHANGE_SUBJECT]: ([subject]) => ({ subject }),
  [Stub.GROUP_CHANGE_DESCRIPTION]: ([desc]) => ({ desc: desc ?? '' }),
  [Stub.GROUP_CHANGE_ANNOUNCE]: ([value]) => ({ announce: on(value) }),
  [Stub.GROUP_CHANGE_RESTRICT]: ([value]) => ({ restrict: on(value) }),
  [Stub.GROUP_MEMBER_ADD_MODE]: ([value]) => ({ memberAddMode: value === 'all_member_add' }),
  [Stub.GROUP_MEMBERSHIP_JOIN_APPROVAL_MODE]: ([value]) => ({ joinApprovalMode: value === 'on' }),
};

/**
 * The change a group notification announced, from its stub message (`messages.upsert`), or undefined
 * for any other message. Baileys announces these changes twice: as the stub and as a partial
 * `groups.update`; but its event buffer keeps only the first `groups.update` of a group per flush
 * (Utils/event-buffer.js), so of a phone's subject, description and setting changes arriving together
 * (or waiting offline) only the first would be seen. The stubs are all kept, in order.
 */
export function announcedGroupChange(msg: WAMessage, cache: BoundedCache<GroupMetadata>): Change | undefined {
  const jid = msg.key.remoteJid;
  const fields = msg.messageStubType ? ANNOUNCED[msg.messageStubType]?.((msg.messageStubParameters ?? []).map(String)) : undefined;
  if (!jid || !isJidGroup(jid) || !fields) return undefined;
  cache.del(jid);
  return groupChange({ id: jid, ...fields });
}

/**
 * What one Baileys `groups.update` entry changed, or undefined when it changed nothing.
 *
 * Baileys emits two kinds of entries under the same event. A change WhatsApp announced (a group
 * notification, Utils/process-message.js) carries only the changed fields: it was reported from its
 * stub message ({@link announcedGroupChange}), so here it only marks the cached metadata stale. A group
 * query (`groupFetchAllParticipating`, Socket/groups.js — run by
 * every group or community list and by WhatsApp's "groups dirty" signal) emits the full metadata of
 * every group, changed or not: it refreshes the cache, and is a change only in the fields that
 * differ from the metadata cached before. A group seen for the first time has nothing to differ
 * from. Participants are left out of the comparison: their changes come as participant events.
 */
export function groupUpdateChange(update: GroupUpdate, cache: BoundedCache<GroupMetadata>): Change | undefined {
  if (!isFullMetadata(update)) {
    cache.del(update.id);
    return undefined;
  }
  const previous = cache.get(update.id);
  cache.set(update.id, update);
  if (!previous) return undefined;
  const before = groupChange(previous) as Record<string, unknown>;
  const after = groupChange(update) as Record<string, unknown>;
  const change: Change = { id: update.id };
  let changed = false;
  for (const [field, value] of Object.entries(after)) {
    if (field === 'id' || field === 'participants' || JSON.stringify(value) === JSON.stringify(before[field])) continue;
    (change as Record<string, unknown>)[field] = value;
    changed = true;
  }
  return changed ? change : undefined;
}

/** Baileys' `extractGroupMetadata` always answers the member list; announced changes never carry one. */
function isFullMetadata(update: GroupUpdate): update is GroupMetadata {
  return Array.isArray(update.participants);
}
