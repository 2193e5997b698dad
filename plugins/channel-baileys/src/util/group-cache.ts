import type { GroupMetadata, GroupParticipant } from '@whiskeysockets/baileys';
import { BoundedCache, type BoundedCacheOptions } from './bounded-cache.js';
import { isLidJid, isPnJid, normalizeJid } from './jids.js';

/** Members' numbers remembered at once (the least recently used go first). */
const NUMBERS_KEPT = 10_000;

/**
 * The group metadata cache (Baileys' `cachedGroupMetadata`, the group routes and events), which also keeps the
 * numbers of the LID-addressed members it has seen. A LID-addressed group (`addressing_mode="lid"`, how
 * WhatsApp creates groups now) names each member by LID with the number beside (`phone_number`), but Baileys
 * rc14 stores none of these pairs (Socket/groups.js extractGroupMetadata: "TODO: Store LID MAPPINGS"), so the
 * receipts, notification authors and presences that name a member by LID alone would reach Parley as LIDs.
 * The numbers outlive the metadata (which is dropped at every change), so a LID seen once stays resolvable.
 */
export class GroupMetadataCache extends BoundedCache<GroupMetadata> {
  private readonly numbers: BoundedCache<string>;

  constructor(options: BoundedCacheOptions) {
    super(options);
    this.numbers = new BoundedCache<string>({ max: NUMBERS_KEPT, ...(options.now ? { now: options.now } : {}) });
  }

  override set<T = GroupMetadata>(key: string, value: T): void {
    this.learn((value as GroupMetadata).participants ?? []);
    super.set(key, value);
  }

  override flushAll(): void {
    super.flushAll();
    this.numbers.flushAll();
  }

  /** Remembers the numbers of members named by LID with their number beside (metadata, participant updates). */
  learn(participants: ReadonlyArray<Pick<GroupParticipant, 'id' | 'phoneNumber'>>): void {
    for (const { id, phoneNumber } of participants) {
      if (isLidJid(id) && isPnJid(phoneNumber)) this.numbers.set(normalizeJid(id), normalizeJid(phoneNumber));
    }
  }

  /**
   * Remembers the numbers of join requesters a LID-addressed group or community lists by LID with `phone_number`
   * (Baileys' groupRequestParticipantsList and communityRequestParticipantsList keep both): the answer to
   * approving or rejecting them names the LID alone.
   */
  learnRequesters(list: ReadonlyArray<{ [key: string]: string }>): void {
    this.learn(list.map((r) => ({ id: r.jid ?? '', phoneNumber: r.phone_number })));
  }

  /** The number's JID of a group member's LID seen in a LID-addressed group, if any. */
  pnForLid(lid: string): string | undefined {
    return this.numbers.get(normalizeJid(lid));
  }
}
