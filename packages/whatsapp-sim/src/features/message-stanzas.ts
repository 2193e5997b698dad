import { getBinaryNodeChild, getBinaryNodeChildren } from '@whiskeysockets/baileys';
import type { BinaryNode } from '@whiskeysockets/baileys';
import type { ClientConnection } from '../transport/connection.js';
import { splitJid, unixNow } from '../network/network.js';
import type { Account } from '../network/model.js';
import { BUSINESS_STANZA, RESTRICTED_ACCOUNT } from '../verdicts.js';

/**
 * Why WhatsApp refuses the `<biz>` node of a message stanza, or undefined when it takes it (or there is
 * none: the server cannot read the encrypted message, so a button message without `<biz>` is taken).
 * Every `<biz>` must carry the attributes live clients send; one holding an `<interactive type="native_flow">`
 * must also name its flow (`<native_flow name v>`) and carry a `<quality_control decision_id>` (BUSINESS_STANZA).
 */
export function bizRefusal(stanza: BinaryNode): string | undefined {
  const biz = getBinaryNodeChild(stanza, 'biz');
  if (!biz) return undefined;
  const missing = BUSINESS_STANZA.value.bizAttributes.filter((name) => !/^\d+$/.test(biz.attrs[name] ?? ''));
  if (missing.length) return `<biz> lacks ${missing.join(', ')}`;
  const interactive = getBinaryNodeChildren(biz, 'interactive').find((n) => n.attrs.type === 'native_flow');
  if (!interactive) return undefined;
  if (interactive.attrs.v !== '1') return '<interactive type="native_flow"> must have v="1"';
  const flow = getBinaryNodeChild(interactive, 'native_flow');
  if (!flow?.attrs.name || !flow.attrs.v) return '<interactive> lacks a <native_flow name v>';
  if (!getBinaryNodeChild(biz, 'quality_control')?.attrs.decision_id) return '<biz> lacks <quality_control decision_id>';
  return undefined;
}

/** Whether a message stanza goes to someone else (a person or a group), not between the sender's own devices. */
function reachesOthers(node: BinaryNode, sender: Account): boolean {
  const [user] = splitJid(node.attrs.to ?? '');
  return node.attrs.category !== 'peer' && user !== sender.number && user !== sender.lid;
}

/**
 * The server's first look at a client's `<message>` stanza: it acks it, refusing it with
 * `<ack error="463">` when the sender's account is restricted (RESTRICTED_ACCOUNT: messages to others; its own
 * devices' peer traffic still flows) and with
 * `<ack error="479">` when its `<biz>` is not what live clients send (what the clients sent is in the
 * network's stanza log). The 1:1 and group features relay only what this admits.
 */
export class MessageStanzas {
  /** Acks the stanza; false when it was refused (nothing may be relayed). */
  admit(connection: ClientConnection, node: BinaryNode, sender: Account): boolean {
    const { id = '', to = '' } = node.attrs;
    const error = sender.restricted && reachesOthers(node, sender) ? RESTRICTED_ACCOUNT.value.ackError : bizRefusal(node) ? BUSINESS_STANZA.value.refusal : undefined;
    connection.send({ tag: 'ack', attrs: { class: 'message', id, from: to, t: unixNow(), ...(error ? { error: String(error) } : {}) } });
    return error === undefined;
  }
}
