import type { MessageRecord } from '@parley/core';
import { mergeContextInfo } from '@parley/whatsapp-proto';
import { typedMember } from './packet-to-inbound.js';

/** Who wrote a quoted message: this phone, the group member, or the peer of a direct chat. */
export function quotedSender(quoted: MessageRecord, ownJid: string): string {
  return quoted.key.fromMe ? ownJid : quoted.key.participant ?? quoted.key.remoteJid;
}

/**
 * Makes `message` (from `outgoingToProto`) a reply to `quoted`, as WhatsApp apps and Baileys do: the
 * typed member gets a `contextInfo` naming the quoted message and its sender and carrying a copy of
 * its content (its typed member only, without that member's own quote), plus the quoted chat when
 * the reply goes to another chat.
 */
export function quoteInto(message: Record<string, unknown>, quoted: MessageRecord, chatJid: string, ownJid: string): void {
  const [name] = typedMember(quoted.message);
  const contextInfo = {
    stanzaId: quoted.key.id,
    participant: quotedSender(quoted, ownJid),
    quotedMessage: { [name]: withoutQuote(quoted.message[name]) },
    ...(chatJid !== quoted.key.remoteJid ? { remoteJid: quoted.key.remoteJid } : {}),
  };
  // Beside the mentions the message may carry already.
  mergeContextInfo(message, contextInfo);
}

/** A typed member without the quote it carried itself (a quote never nests). */
function withoutQuote(member: unknown): unknown {
  if (member === null || typeof member !== 'object') return member;
  const { contextInfo: _nested, ...content } = member as Record<string, unknown>;
  return content;
}
