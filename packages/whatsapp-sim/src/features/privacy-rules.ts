import type { Account } from '../network/model.js';
import { blocks } from '../network/model.js';

/**
 * What an account's privacy settings let other accounts see and do, as the server enforces it. The values
 * are WhatsApp's (whatsmeow types/user.go PrivacySetting: all, contacts, contact_blacklist, match_last_seen,
 * known, none; Baileys 7.0.0-rc14 lib/Types/Chat.d.ts narrows them per category). The simulator keeps no
 * "except" list, so `contact_blacklist` ("my contacts except…") is read as `contacts`.
 *
 * Not enforced, because no public source shows the server doing anything: `calladd: known` (WhatsApp's
 * "Silence unknown callers": such calls "will not ring on your phone, but will be visible in your call
 * list", WhatsApp's statement of 20 June 2023 as Business Standard quoted it — so the offer still reaches the phone, and the silencing is the
 * receiving app's) and `messages` (Baileys updateMessagesPrivacy sends `all` or `contacts`; no public source
 * says what the server then does with a stranger's message).
 */

/** Whether `owner` saved `other` in its address book (the app-state contact, by number or by LID). */
export function isContact(owner: Account, other: Account): boolean {
  return owner.book.contacts.has(`${other.number}@s.whatsapp.net`) || owner.book.contacts.has(`${other.lid}@lid`);
}

/** Whether `owner`'s setting for `category` (`last`, `groupadd`) lets `viewer` in; a block shuts everyone out. */
export function allows(owner: Account, viewer: Account, category: 'last' | 'groupadd'): boolean {
  if (owner === viewer) return true;
  if (blocks(owner, viewer)) return false;
  const value = owner.social.privacy[category];
  if (value === 'all') return true;
  return (value === 'contacts' || value === 'contact_blacklist') && isContact(owner, viewer);
}

/**
 * Whether `viewer` sees when `owner` was last seen. Reciprocal, as WhatsApp's FAQ "Configuring your privacy
 * settings" (faq.whatsapp.com/883211905996150) says: "If you don't share your last seen or online, you won't
 * be able to see other people's last seen or online."
 */
export function seesLastSeen(owner: Account, viewer: Account): boolean {
  return allows(owner, viewer, 'last') && viewer.social.privacy.last !== 'none';
}

/**
 * Whether `viewer` sees `owner` online: `online: all` shows it to everyone, `match_last_seen` to those who see
 * the last seen (Baileys WAPrivacyOnlineValue; whatsmeow PrivacySettingMatchLastSeen). A viewer who shares
 * its own online with nobody sees nobody's (the same FAQ).
 */
export function seesOnline(owner: Account, viewer: Account): boolean {
  const shares = (a: Account, b: Account) => !blocks(a, b) && (a.social.privacy.online === 'all' || allows(a, b, 'last'));
  const hidesFromAll = viewer.social.privacy.online === 'match_last_seen' && viewer.social.privacy.last === 'none';
  return shares(owner, viewer) && !hidesFromAll;
}

/**
 * Whether a read receipt between two accounts in a 1:1 chat is relayed. WhatsApp's FAQ "Configuring your
 * privacy settings" (faq.whatsapp.com/883211905996150): "If you turn off read receipts, you won't be able to
 * see read receipts from other people. Read receipts are always sent for group chats." So neither a reader
 * nor a sender with `readreceipts: none` gets a `read` in a 1:1 chat; groups and `played` are untouched.
 * (Baileys rc14 readMessages sends `read-self` instead of `read` when its own setting is not `all`; the
 * server holds back the `read` of a client that still sends it, and the one owed to such an account.)
 */
export function readReceiptsFlow(reader: Account, sender: Account): boolean {
  return reader.social.privacy.readreceipts !== 'none' && sender.social.privacy.readreceipts !== 'none';
}
