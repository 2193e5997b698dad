import type { Group } from '@parley/core';
import type { GroupMetadata } from '@whiskeysockets/baileys';
import { groupChange } from '../mapping/resources.js';
import type { BoundedCache } from '../util/bounded-cache.js';

type GroupUpdate = Partial<GroupMetadata> & { id: string };
type Change = Partial<Group> & { id: string };

/**
 * What one Baileys `groups.update` entry changed, or undefined when it changed nothing.
 *
 * Baileys emits two kinds of entries under the same event. A change WhatsApp announced (a group
 * notification, Utils/process-message.js) carries only the changed fields: it is a change, and the
 * cached metadata is stale. A group query (`groupFetchAllParticipating`, Socket/groups.js — run by
 * every group or community list and by WhatsApp's "groups dirty" signal) emits the full metadata of
 * every group, changed or not: it refreshes the cache, and is a change only in the fields that
 * differ from the metadata cached before. A group seen for the first time has nothing to differ
 * from. Participants are left out of the comparison: their changes come as participant events.
 */
export function groupUpdateChange(update: GroupUpdate, cache: BoundedCache<GroupMetadata>): Change | undefined {
  if (!isFullMetadata(update)) {
    cache.del(update.id);
    return groupChange(update);
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
