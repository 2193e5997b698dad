import { type ChannelEventOf } from '@parley/core';
import { jidUser } from '@parley/whatsapp-proto';
import type { MetaValue } from './meta-payload.js';

type Members = Omit<MetaValue, 'messaging_product' | 'metadata'>;

/** `presence` {wa_id, status}: the number whose presence changed. */
export function presenceMembers(event: ChannelEventOf<'presence'>): Members {
  return { presence: { wa_id: jidUser(event.jid), status: event.status } };
}

/** `connection` {status, code} plus `reason` when closed. */
export function connectionMembers(event: ChannelEventOf<'connection'>): Members {
  if (event.status === 'open') return { connection: { status: 'open', code: event.code } };
  return { connection: { status: 'close', code: event.code, reason: event.reason } };
}

/** `qrcode.code`: the PNG data URI (not the raw QR text). */
export function qrcodeMembers(event: ChannelEventOf<'qrcode'>): Members {
  return { qrcode: { code: event.image } };
}

/** `calls[]`; `timestamp` is Unix seconds as text, like messages and statuses. */
export function callMembers(event: ChannelEventOf<'call'>): Members {
  return {
    calls: [{
      id: event.callId, from: event.from, status: event.status, from_jid: event.fromJid, is_video: event.isVideo, is_group: event.isGroup,
      timestamp: String(event.timestamp),
    }],
  };
}

/**
 * `groups`: `participants_updated` with the group, action and member JIDs, or `update` whose `data[]`
 * holds each group's id and every field that changed (spec 2.7 names: `subject`, `desc`, …).
 */
export function groupMembers(event: ChannelEventOf<'group.participants'> | ChannelEventOf<'group.update'>): Members {
  if (event.type === 'group.participants') {
    return { groups: { event: 'participants_updated', id: event.groupJid, action: event.action, participants: [...event.participants] } };
  }
  return { groups: { event: 'update', data: event.groups.map((group) => ({ ...group })) } };
}

/** `health` with snake_case flags. */
export function healthMembers(event: ChannelEventOf<'health'>): Members {
  return {
    health: { status: event.status, previous: event.previous, reason: event.reason, should_pause: event.shouldPause, should_rotate: event.shouldRotate },
  };
}

