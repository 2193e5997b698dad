import type { BinaryNode } from '@whiskeysockets/baileys';

/** A stanza as the inspection endpoint shows it: its tag, attributes and children; binary content as its size. */
export interface StanzaSummary {
  tag: string;
  attrs: Record<string, string>;
  content?: StanzaSummary[] | { bytes: number } | string;
}

/** One stanza a client sent, with the device that sent it. */
export interface SeenStanza {
  at: string;
  device: string;
  stanza: StanzaSummary;
}

/** Stanzas kept per account (the oldest go first), and how deep a stanza is shown. */
const MAX_SEEN = 1000;
const MAX_DEPTH = 6;

function summarize(node: BinaryNode, depth = 0): StanzaSummary {
  const summary: StanzaSummary = { tag: node.tag, attrs: { ...node.attrs } };
  if (Array.isArray(node.content)) {
    summary.content = depth < MAX_DEPTH ? node.content.map((child) => summarize(child, depth + 1)) : [];
  } else if (node.content instanceof Uint8Array) {
    summary.content = { bytes: node.content.length };
  } else if (typeof node.content === 'string') {
    summary.content = node.content;
  }
  return summary;
}

/**
 * What the server saw from each account's clients, newest last: every stanza a logged-in companion sent
 * (its encrypted payloads only as sizes), for tests that check what a client put on the wire.
 */
export class StanzaLog {
  private readonly seen = new Map<string, SeenStanza[]>();

  record(number: string, device: string, node: BinaryNode): void {
    const list = this.seen.get(number) ?? [];
    list.push({ at: new Date().toISOString(), device, stanza: summarize(node) });
    if (list.length > MAX_SEEN) list.splice(0, list.length - MAX_SEEN);
    this.seen.set(number, list);
  }

  /** The stanzas of an account, optionally only those with one tag. */
  of(number: string, tag?: string): SeenStanza[] {
    return (this.seen.get(number) ?? []).filter((s) => !tag || s.stanza.tag === tag);
  }
}
