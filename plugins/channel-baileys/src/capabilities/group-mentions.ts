import { isJidGroup, type AnyMessageContent, type GroupMetadata } from '@whiskeysockets/baileys';
import type { AdapterRuntime } from '../runtime.js';
import type { BaileysSocket } from '../socket.js';
import { isLidJid, isPnJid, normalizeJid } from '../util/jids.js';
import { mentionRenames, renameMentions } from '../util/mention-text.js';
import { sendSideMetadata } from './disappearing.js';

/**
 * The member `jid` (a number's JID) as a LID-addressed group names it: its LID from the group's metadata
 * (`<participant jid="…@lid" phone_number="…">`), else from the LID mapping Baileys stored (usync); the JID
 * as given when neither knows it (a LID already, or someone who is not a member).
 */
async function memberLid(meta: GroupMetadata, socket: BaileysSocket, jid: string): Promise<string> {
  if (!isPnJid(jid)) return jid;
  const pn = normalizeJid(jid);
  const member = meta.participants.find((p) => isLidJid(p.id) && p.phoneNumber && normalizeJid(p.phoneNumber) === pn);
  if (member) return normalizeJid(member.id);
  const lid = await socket.signalRepository.lidMapping.getLIDForPN(pn).catch(() => null);
  return lid ? normalizeJid(lid) : jid;
}

/**
 * A send's mentions as the group it goes to names its members. In a LID-addressed group (`addressing_mode="lid"`,
 * how WhatsApp creates groups now) WhatsApp's apps mention members by LID: `contextInfo.mentionedJid` holds their
 * LIDs and the text shows `@<LID user>` (whatsapp-web.js issue #3605, Baileys issue #1737 "use @lid in message and
 * in mention", WAHA issue #1015). A mention by number there names nobody the members' apps know, so each mentioned
 * number becomes the member's LID, and each `@<number>` of the text or caption (docs/rest-api.md: the caller writes
 * `@<number>`) becomes `@<LID user>`. Baileys rc14 passes `mentions` through as given (Utils/messages.js). Any other
 * content, chat or group goes as it is.
 */
export async function mentionsAsGroupNames(runtime: AdapterRuntime, socket: BaileysSocket, jid: string, content: AnyMessageContent): Promise<AnyMessageContent> {
  const mentions = (content as { mentions?: string[] }).mentions;
  if (!isJidGroup(jid) || !mentions?.length) return content;
  const meta = await sendSideMetadata(runtime, socket, jid);
  if (meta?.addressingMode !== 'lid') return content;
  const named = await Promise.all(mentions.map((m) => memberLid(meta, socket, m)));
  const renames = mentionRenames(mentions, named);
  const out: Record<string, unknown> = { ...content, mentions: named };
  if (typeof out.text === 'string') out.text = renameMentions(out.text, renames);
  if (typeof out.caption === 'string') out.caption = renameMentions(out.caption, renames);
  return out as AnyMessageContent;
}
