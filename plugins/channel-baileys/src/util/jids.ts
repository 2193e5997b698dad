import { jidUser, LID_SUFFIX, USER_SUFFIX } from '@parley/whatsapp-proto';
import { jidNormalizedUser } from '@whiskeysockets/baileys';

/** True for a LID (`…@lid`, `…@hosted.lid`). */
export function isLidJid(jid: string | null | undefined): jid is string {
  return !!jid && (jid.endsWith(LID_SUFFIX) || jid.endsWith('@hosted.lid'));
}

/** True for a phone-number user JID (`…@s.whatsapp.net`). */
export function isPnJid(jid: string | null | undefined): jid is string {
  return !!jid && jid.endsWith(USER_SUFFIX);
}

/** A user JID without device suffix (`5511999:3@s.whatsapp.net` → `5511999@s.whatsapp.net`). */
export function normalizeJid(jid: string): string {
  return jidNormalizedUser(jid) || jid;
}

/** Digits of a phone-number JID, or the user part of any other JID. */
export function userPart(jid: string): string {
  return jidUser(jid);
}

/** Picks the phone-number form among a JID and its alternate (Baileys gives both for LID chats). */
export function preferPn(jid: string | null | undefined, alt: string | null | undefined): string | undefined {
  if (isPnJid(alt)) return normalizeJid(alt);
  if (jid) return normalizeJid(jid);
  return alt ? normalizeJid(alt) : undefined;
}
