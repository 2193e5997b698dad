import {
  decodeBinaryNode, encodeBinaryNode, getBinaryNodeChild, getBinaryNodeChildren, type BinaryNode, type GroupMetadata,
} from '@whiskeysockets/baileys';
import { extractGroupMetadata } from '@whiskeysockets/baileys/lib/Socket/groups.js';

/** One group as WhatsApp describes it in a `w:g2` answer. */
export interface GroupNodeSpec {
  /** Group JID (`<digits>@g.us`); WhatsApp sends the digits only. */
  id: string;
  subject: string;
  /** Unix seconds. */
  creation: number;
  creator?: string;
  creatorPn?: string;
  desc?: string;
  participants?: { jid: string; type?: 'admin' | 'superadmin'; phoneNumber?: string }[];
  /** A community (parent group): WhatsApp marks it with a `<parent>` child. */
  community?: boolean;
  linkedParent?: string;
  announce?: boolean;
  locked?: boolean;
}

/** The `<group>` node WhatsApp sends for a group (the tags and attributes Baileys' `extractGroupMetadata` reads). */
export function groupNode(spec: GroupNodeSpec): BinaryNode {
  const content: BinaryNode[] = [];
  if (spec.desc !== undefined) {
    content.push({ tag: 'description', attrs: { id: 'D1', t: String(spec.creation) }, content: [{ tag: 'body', attrs: {}, content: Buffer.from(spec.desc) }] });
  }
  for (const p of spec.participants ?? []) {
    content.push({ tag: 'participant', attrs: { jid: p.jid, ...(p.type ? { type: p.type } : {}), ...(p.phoneNumber ? { phone_number: p.phoneNumber } : {}) } });
  }
  if (spec.community) content.push({ tag: 'parent', attrs: { default_membership_approval_mode: 'request_required' } });
  if (spec.linkedParent) content.push({ tag: 'linked_parent', attrs: { jid: spec.linkedParent } });
  if (spec.announce) content.push({ tag: 'announcement', attrs: {} });
  if (spec.locked) content.push({ tag: 'locked', attrs: {} });
  return {
    tag: 'group',
    attrs: {
      id: spec.id.replace(/@g\.us$/, ''), subject: spec.subject, creation: String(spec.creation), s_t: String(spec.creation),
      ...(spec.creator ? { creator: spec.creator } : {}), ...(spec.creatorPn ? { creator_pn: spec.creatorPn } : {}),
    },
    content,
  };
}

/**
 * WhatsApp's answer to the `w:g2` `<participating>` query: an iq result with one `<groups>` child
 * holding a `<group>` per group, communities included (Socket/groups.js `groupFetchAllParticipating`
 * reads exactly this).
 */
export function participatingAnswer(groups: GroupNodeSpec[]): BinaryNode {
  return { tag: 'iq', attrs: { type: 'result', from: '@g.us' }, content: [{ tag: 'groups', attrs: {}, content: groups.map(groupNode) }] };
}

/** An answer as the socket's `query` hands it over: encoded to WhatsApp's binary format and decoded back. */
export async function overTheWire(node: BinaryNode): Promise<BinaryNode> {
  return decodeBinaryNode(encodeBinaryNode(node));
}

/** Socket/groups.js `groupFetchAllParticipating`, after the query: the same parsing, line for line. */
export function parseGroupsParticipating(result: BinaryNode): Record<string, GroupMetadata> {
  const data: Record<string, GroupMetadata> = {};
  const groupsChild = getBinaryNodeChild(result, 'groups');
  if (groupsChild) {
    for (const groupNode of getBinaryNodeChildren(groupsChild, 'group')) {
      const meta = extractGroupMetadata({ tag: 'result', attrs: {}, content: [groupNode] });
      data[meta.id] = meta;
    }
  }
  return data;
}
