import { ForbiddenError } from '@parley/core';
import { isJidGroup, type GroupMetadata } from '@whiskeysockets/baileys';
import type { AdapterRuntime } from '../runtime.js';
import type { BaileysSocket } from '../socket.js';
import { normalizeJid } from '../util/jids.js';
import { GROUP_MISSING, upstream } from '../util/errors.js';

/**
 * A group's metadata for a call only a member makes (a chat state to it, a subscription to its presence): the
 * send-side cache Baileys' group sends read through, else one query (cached); 404 `group_not_found` when WhatsApp
 * has no such group or the account is not in it. Sent anyway, WhatsApp's server relays nothing and says nothing
 * (as the simulator does), so answering 200 would lie.
 */
export async function memberMetadata(runtime: AdapterRuntime, socket: BaileysSocket, jid: string): Promise<GroupMetadata> {
  const cached = runtime.groupCache.get(jid);
  if (cached) return cached;
  const meta = await upstream('group', () => socket.groupMetadata(jid), GROUP_MISSING);
  runtime.groupCache.set(jid, meta);
  return meta;
}

/**
 * A group's metadata for a send, as {@link memberMetadata} finds it, but undefined when it cannot (e.g. for a
 * group the account is not in: the send then meets WhatsApp's verdict).
 */
export function sendSideMetadata(runtime: AdapterRuntime, socket: BaileysSocket, jid: string): Promise<GroupMetadata | undefined> {
  return memberMetadata(runtime, socket, jid).catch(() => undefined);
}

/**
 * The disappearing-messages timer (seconds) of the chat a message goes to, 0 when off: a group's
 * from its metadata (the send-side cache, else a query), a person's from the stored chat, which
 * WhatsApp's `chats.update` keeps (Baileys emits `ephemeralExpiration` when either side changes the
 * setting). A message sent without the timer of a chat that has one shows the recipient "the sender
 * may be on an old version" and does not disappear.
 */
export async function disappearingTimer(runtime: AdapterRuntime, socket: BaileysSocket, jid: string): Promise<number> {
  if (isJidGroup(jid)) return (await sendSideMetadata(runtime, socket, jid))?.ephemeralDuration ?? 0;
  const chat = await runtime.context.storage.chats.get(runtime.context.instanceId, jid);
  return chat?.ephemeralExpiration ?? 0;
}

/**
 * Refuses (403 `not_admin`) a send into an announcement group (`announce`: only admins send) by an account
 * that is not one of its admins, as WhatsApp's apps never let such a member send (docs/rest-api.md). Sent
 * anyway it would be reported sent and, dropped by the server (as the simulator does), reach nobody.
 */
export async function requireMayPost(runtime: AdapterRuntime, socket: BaileysSocket, jid: string): Promise<void> {
  if (!isJidGroup(jid)) return;
  const meta = await sendSideMetadata(runtime, socket, jid);
  if (!meta?.announce) return;
  const own = new Set([socket.user?.id, socket.user?.lid].filter((j): j is string => !!j).map(normalizeJid));
  const self = meta.participants.find((p) => [p.id, p.phoneNumber, p.lid].some((j) => j && own.has(normalizeJid(j))));
  if (!self?.admin) throw new ForbiddenError(`only admins can send messages to the announcement group ${jid}`, 'not_admin');
}
