import { isJidGroup, type AnyMessageContent, type GroupMetadata, type WAMessage, type WAMessageKey } from '@whiskeysockets/baileys';
import type { OutboundPlan } from '../mapping/outbound-content.js';
import type { AdapterRuntime } from '../runtime.js';
import type { BaileysSocket } from '../socket.js';
import { isLidJid, isPnJid, normalizeJid } from '../util/jids.js';
import { mentionRenames, renameMentions } from '../util/mention-text.js';
import { sendSideMetadata } from './disappearing.js';

/** A send's plan and the message it quotes, as they go to Baileys. */
export interface GroupSend {
  plan: OutboundPlan;
  quoted: WAMessage | undefined;
}

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

/** A message key (a reaction's or pin's target) naming its author by LID. */
async function keyByLid(meta: GroupMetadata, socket: BaileysSocket, key: WAMessageKey): Promise<WAMessageKey> {
  return key.participant ? { ...key, participant: await memberLid(meta, socket, key.participant) } : key;
}

/**
 * The quoted message with its author by LID. Baileys rc14 names the author of a quote (`contextInfo.participant`) by
 * the key's `participant`, and the account itself by its number ("TODO: Add support for LIDs", Utils/messages.js
 * generateWAMessageFromContent): the account's own message is handed over as its LID's.
 */
async function quotedByLid(meta: GroupMetadata, socket: BaileysSocket, quoted: WAMessage): Promise<WAMessage> {
  const ownLid = socket.user?.lid ? normalizeJid(socket.user.lid) : undefined;
  if (quoted.key.fromMe) return ownLid ? { ...quoted, key: { ...quoted.key, fromMe: false, participant: ownLid } } : quoted;
  return { ...quoted, key: await keyByLid(meta, socket, quoted.key) };
}

/** Mentions, and the text or caption showing them, by LID (see {@link asGroupNames}). */
async function mentionsByLid(meta: GroupMetadata, socket: BaileysSocket, content: AnyMessageContent): Promise<AnyMessageContent> {
  const mentions = (content as { mentions?: string[] }).mentions;
  if (!mentions?.length) return content;
  const named = await Promise.all(mentions.map((m) => memberLid(meta, socket, m)));
  const renames = mentionRenames(mentions, named);
  const out: Record<string, unknown> = { ...content, mentions: named };
  if (typeof out.text === 'string') out.text = renameMentions(out.text, renames);
  if (typeof out.caption === 'string') out.caption = renameMentions(out.caption, renames);
  return out as AnyMessageContent;
}

/**
 * A send as the group it goes to names its members. In a LID-addressed group (`addressing_mode="lid"`, how WhatsApp
 * creates groups now) WhatsApp's apps name members by LID in what a message says of them: mentions
 * (`contextInfo.mentionedJid`, with `@<LID user>` in the text: whatsapp-web.js issue #3605, Baileys issue #1737 "use
 * @lid in message and in mention", WAHA issue #1015), the author of a quote (`contextInfo.participant`) and of a
 * reaction's or pin's target (the key's `participant`; a reaction naming the author by number does not render,
 * openclaw PR #71553). Parley's records and API name members by number, and Baileys rc14 passes these through as
 * given, so each becomes the member's LID here, and each `@<number>` of the text or caption (docs/rest-api.md: the
 * caller writes `@<number>`) `@<LID user>`. Any other chat or group goes as it is.
 */
export async function asGroupNames(runtime: AdapterRuntime, socket: BaileysSocket, jid: string, send: GroupSend): Promise<GroupSend> {
  if (!isJidGroup(jid)) return send;
  const meta = await sendSideMetadata(runtime, socket, jid);
  if (meta?.addressingMode !== 'lid') return send;
  const quoted = send.quoted && await quotedByLid(meta, socket, send.quoted);
  if (send.plan.via !== 'send') return { plan: send.plan, quoted };
  let content = await mentionsByLid(meta, socket, send.plan.content);
  if ('react' in content && content.react.key) content = { ...content, react: { ...content.react, key: await keyByLid(meta, socket, content.react.key) } };
  if ('pin' in content && content.pin) content = { ...content, pin: await keyByLid(meta, socket, content.pin) } as AnyMessageContent;
  return { plan: { ...send.plan, content }, quoted };
}
