import { userPart } from './jids.js';

/** `@` followed by digits in a text: where WhatsApp's apps show a mention (the mentioned JID's user part). */
const MENTION_IN_TEXT = /@(\d+)(?!\d)/g;

/**
 * The user parts to show instead, for mentions named one way and shown another: `from[i]` → `to[i]` (a number's JID
 * and a member's LID, or the reverse), only where they differ.
 */
export function mentionRenames(from: readonly string[], to: readonly string[]): Map<string, string> {
  const renames = new Map<string, string>();
  from.forEach((jid, i) => {
    const shown = to[i];
    if (shown && userPart(jid) !== userPart(shown)) renames.set(userPart(jid), userPart(shown));
  });
  return renames;
}

/** `text` with each `@<user part>` that `renames` names written `@<other user part>`; other `@digits` stay. */
export function renameMentions(text: string, renames: ReadonlyMap<string, string>): string {
  if (renames.size === 0) return text;
  return text.replace(MENTION_IN_TEXT, (whole, digits: string) => {
    const shown = renames.get(digits);
    return shown ? `@${shown}` : whole;
  });
}
