import { getBinaryNodeChild, getBinaryNodeChildren } from '@whiskeysockets/baileys';
import type { BinaryNode } from '@whiskeysockets/baileys';
import type { ClientConnection } from '../transport/connection.js';
import type { Account } from '../network/model.js';
import { unixNow } from '../network/network.js';
import { BUSINESS_STANZA } from '../verdicts.js';

/** A stanza node without its bytes: tag, attributes and child nodes. */
export interface NodeView {
  tag: string;
  attrs: Record<string, string>;
  content?: NodeView[];
}

/** A `<message>` stanza a client sent, as the server saw it (the ciphertexts left out). */
export interface SeenStanza {
  id: string;
  to: string;
  /** The stanza's `type` (`text`, `media`…). */
  type: string | undefined;
  /** Unix ms it arrived. */
  at: number;
  /** Its children other than the encrypted copies (`enc`, `participants`, `device-identity`): `biz`, `bot`, `meta`… */
  nodes: NodeView[];
  /** Set when the server refused it: the ack's `error` and why. */
  refused?: { error: number; reason: string };
}

/** Stanzas kept per account (the oldest go first). */
export const MAX_SEEN = 500;

const CIPHER_NODES = new Set(['enc', 'participants', 'device-identity']);

function view(node: BinaryNode): NodeView {
  const children = Array.isArray(node.content) ? node.content.map(view) : undefined;
  return { tag: node.tag, attrs: { ...node.attrs }, ...(children?.length ? { content: children } : {}) };
}

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

/**
 * The server's first look at a client's `<message>` stanza: it keeps what it saw (per sending account,
 * for the control API) and acks it, refusing it with `<ack error="479">` when its `<biz>` is not what
 * live clients send. The 1:1 and group features relay only what this admits.
 */
export class MessageStanzas {
  private readonly seen = new Map<Account, SeenStanza[]>();

  /** Records and acks the stanza; false when it was refused (nothing may be relayed). */
  admit(account: Account, connection: ClientConnection, node: BinaryNode): boolean {
    const { id = '', to = '' } = node.attrs;
    const reason = bizRefusal(node);
    const nodes = Array.isArray(node.content) ? node.content.filter((n) => !CIPHER_NODES.has(n.tag)).map(view) : [];
    const error = BUSINESS_STANZA.value.refusal;
    const record: SeenStanza = { id, to, type: node.attrs.type, at: Date.now(), nodes, ...(reason ? { refused: { error, reason } } : {}) };
    const list = [...(this.seen.get(account) ?? []), record];
    this.seen.set(account, list.slice(-MAX_SEEN));
    connection.send({ tag: 'ack', attrs: { class: 'message', id, from: to, t: unixNow(), ...(reason ? { error: String(error) } : {}) } });
    return !reason;
  }

  /** What the account's devices sent, oldest first. */
  by(account: Account): SeenStanza[] {
    return [...(this.seen.get(account) ?? [])];
  }
}
