import type { AnyMessageContent, BinaryNode, MessageRelayOptions } from '@whiskeysockets/baileys';
import type { Logger } from '@parley/core';
import type { BaileysSocket } from '../socket.js';
import type { Relay, ServerAcks } from './server-acks.js';

/**
 * The stanza attributes and nodes Baileys' `sendMessage` adds to a content's relay, which a relay of the
 * same message again must carry too (Baileys 7.0.0-rc14 Socket/messages-send.js `sendMessage`: `edit` 7
 * or 8 for a deletion, 1 for an edit, 2 for a pin; `<meta polltype="creation">` for a poll,
 * `<meta event_type="creation">` for an event).
 */
export function relayOptionsOf(content: AnyMessageContent): Relay['options'] {
  const has = (member: string) => member in content && !!(content as Record<string, unknown>)[member];
  if (has('delete')) {
    const key = (content as { delete: { remoteJid?: string | null; fromMe?: boolean | null } }).delete;
    return { additionalAttributes: { edit: key.remoteJid?.endsWith('@g.us') && !key.fromMe ? '8' : '7' } };
  }
  if (has('edit')) return { additionalAttributes: { edit: '1' } };
  if (has('pin')) return { additionalAttributes: { edit: '2' } };
  const meta = (attrs: Record<string, string>): BinaryNode[] => [{ tag: 'meta', attrs }];
  if (has('poll')) return { additionalNodes: meta({ polltype: 'creation' }) };
  if (has('event')) return { additionalNodes: meta({ event_type: 'creation' }) };
  return {};
}

/**
 * Relays again, on a socket that just opened, the sends an earlier socket relayed and the server never
 * acked (see {@link ServerAcks.takeUnacked}), oldest first. A failure is logged and not retried: the
 * send keeps no `sent` status, as before.
 */
export async function resendUnacked(socket: BaileysSocket, acks: ServerAcks, logger: Logger): Promise<void> {
  const pending = acks.takeUnacked();
  if (pending.length === 0) return;
  logger.warn({ count: pending.length }, 'relaying again sends the server never acknowledged before the connection dropped');
  for (const [id, relay] of pending) {
    acks.expect(id);
    const options: MessageRelayOptions = { messageId: id, ...relay.options };
    try {
      await socket.relayMessage(relay.jid, relay.message, options);
      acks.relayed(id, relay);
    } catch (err) {
      logger.warn({ err, messageId: id }, 'could not relay an unacknowledged send again');
    }
  }
}
