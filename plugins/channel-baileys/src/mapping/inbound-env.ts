import type { MessageRecord } from '@parley/core';
import type { proto, WAMessageKey } from '@whiskeysockets/baileys';
import { isLidJid, preferPn } from '../util/jids.js';

/** What inbound mapping needs to know about the account and the LID mapping. */
export interface InboundEnv {
  /** Own account JID without device suffix. */
  ownJid: string;
  ownLid?: string;
  /** Phone-number JID of a LID, when WhatsApp has told us. */
  pnForLid(lid: string): Promise<string | undefined>;
  /** Unix seconds now, for messages without a timestamp. */
  now(): number;
  /** Content of a stored message (Baileys' `getMessage`): polls and events, to decrypt their votes and responses. */
  storedMessage(key: WAMessageKey): Promise<proto.IMessage | undefined>;
  /** The stored record of message `id`, if there is one. */
  storedRecord(id: string): Promise<MessageRecord | undefined>;
  /** Unix seconds when the phone linked this device (the signed device identity's timestamp), when known. */
  linkedAt(): number | undefined;
}

/** Each JID by number where known (a LID through the mapping), in order; undefined stays undefined. */
export async function pnsOf(env: InboundEnv, jids: string[] | undefined): Promise<string[] | undefined> {
  if (!jids) return undefined;
  const out: string[] = [];
  for (const jid of jids) out.push((await resolvePn(env, jid, undefined)) ?? jid);
  return out;
}

/** Phone-number JID among a JID and its alternate, resolving a LID through the mapping when needed. */
export async function resolvePn(env: InboundEnv, jid: string | null | undefined, alt: string | null | undefined): Promise<string | undefined> {
  const picked = preferPn(jid, alt);
  if (!picked || !isLidJid(picked)) return picked;
  return (await env.pnForLid(picked)) ?? picked;
}

