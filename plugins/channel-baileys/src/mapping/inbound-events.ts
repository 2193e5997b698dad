import type { CallStatus, ChannelEventPayload, PresenceStatus } from '@parley/core';
import { areJidsSameUser, isJidGroup, jidNormalizedUser, type BaileysEventMap, type WACallEvent } from '@whiskeysockets/baileys';
import { userPart } from '../util/jids.js';
import { resolvePn, type InboundEnv } from './inbound-env.js';
import { participantJid } from './resources.js';

type Payload<T extends ChannelEventPayload['type']> = Extract<ChannelEventPayload, { type: T }>;

const PRESENCES = new Set<PresenceStatus>(['unavailable', 'available', 'composing', 'recording', 'paused']);
const CALL_STATUSES = new Set<CallStatus>(['offer', 'ringing', 'accept', 'reject', 'timeout', 'terminate']);
const PARTICIPANT_ACTIONS = new Set(['add', 'remove', 'promote', 'demote']);

/**
 * One presence event per member listed in a `presence.update`. A group's own entry is skipped: WhatsApp answers
 * a subscription to a group with `<presence from="group@g.us" count="N">`, its members online, which Baileys
 * reports as the group being `available` with a `groupOnlineCount` (Socket/chats.js handlePresenceUpdate;
 * Baileys PR #2545) — no member's presence, and the spec's presence event has no place for a count.
 */
export async function presenceEvents(update: BaileysEventMap['presence.update'], env: InboundEnv): Promise<Payload<'presence'>[]> {
  const chatJid = (await resolvePn(env, update.id, undefined)) ?? update.id;
  const out: Payload<'presence'>[] = [];
  for (const [member, data] of Object.entries(update.presences)) {
    if (!PRESENCES.has(data.lastKnownPresence) || isJidGroup(member)) continue;
    const jid = (await resolvePn(env, member, undefined)) ?? member;
    out.push({ type: 'presence', jid, status: data.lastKnownPresence, chatJid });
  }
  return out;
}

/**
 * A call event, `from` naming the other party (docs/rest-api.md "Calls"); signalling-only updates (transport,
 * pre-accept, latency) answer undefined. Baileys' `from` is the call's creator (handleCall reads the child's
 * `from`, else its `call-creator`), which is the account itself on a call its phone placed: then the other
 * party is the stanza's sender, `chatId` (the callee whose `<accept>`, `<reject>` or `<terminate>` it is).
 */
export function callEvent(call: WACallEvent, nowSeconds: number, own: { ownJid: string; ownLid?: string }): Payload<'call'> | undefined {
  if (!CALL_STATUSES.has(call.status as CallStatus)) return undefined;
  const creator = call.callerPn ?? call.from;
  const mine = areJidsSameUser(creator, own.ownJid) || (own.ownLid !== undefined && areJidsSameUser(creator, own.ownLid));
  const fromJid = mine ? jidNormalizedUser(call.chatId) : creator;
  return {
    type: 'call',
    callId: call.id,
    from: userPart(fromJid),
    fromJid,
    status: call.status as CallStatus,
    isVideo: call.isVideo === true,
    isGroup: call.isGroup === true,
    timestamp: call.date instanceof Date && !Number.isNaN(call.date.getTime()) ? Math.floor(call.date.getTime() / 1000) : nowSeconds,
  };
}

/**
 * A participant change, members and author by number where known. A LID-addressed group names both by LID with
 * the number beside; Baileys rc14 passes the members' numbers (`phoneNumber`) but loses the author's
 * (`participant_pn`: Socket/messages-recv.js handleNotification puts it in the stub's key as `participantAlt`, which
 * `proto.WebMessageInfo.fromObject` drops, WAProto's MessageKey having no such field), so the author is resolved here;
 * `modify` (a member's LID/number change) has no spec counterpart.
 */
export async function participantsEvent(update: BaileysEventMap['group-participants.update'], env: InboundEnv): Promise<Payload<'group.participants'> | undefined> {
  if (!PARTICIPANT_ACTIONS.has(update.action)) return undefined;
  const author = await resolvePn(env, update.author, update.authorPn);
  return {
    type: 'group.participants',
    groupJid: update.id,
    action: update.action as Payload<'group.participants'>['action'],
    participants: update.participants.map(participantJid),
    ...(author ? { author } : {}),
  };
}
