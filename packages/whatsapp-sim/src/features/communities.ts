import { getBinaryNodeChild, getBinaryNodeChildren } from '@whiskeysockets/baileys';
import type { BinaryNode } from '@whiskeysockets/baileys';
import { IqError } from '../network/network.js';
import type { Network } from '../network/network.js';
import type { Account } from '../network/model.js';
import { MAX_MEMBERS } from './groups.js';
import { PARTICIPANT_CODES } from '../verdicts.js';
import type { Group, Groups } from './groups.js';
import { numberOf, type AddressingMode } from './group-addressing.js';

const pn = (number: string): string => `${number}@s.whatsapp.net`;
const bodyOf = (node: BinaryNode | undefined): string | undefined =>
  node?.content instanceof Uint8Array ? Buffer.from(node.content).toString('utf8') : typeof node?.content === 'string' ? node.content : undefined;

/** What the control API and the iqs may do with join requests. */
export type RequestAction = 'approve' | 'reject';

/**
 * Communities and join requests on top of the groups (w:g2), as whatsmeow's group.go sends and parses them:
 * a community is a group with `<parent>`; the server creates its announcement group (`<default_sub_group>`,
 * announcement-only) with it; its groups carry `<linked_parent jid>`, are listed by `<sub_groups>` and are
 * linked or unlinked with `<links><link link_type="sub_group">` / `<unlink unlink_type="sub_group">`. A group
 * with `<membership_approval_mode><group_join state="on">` takes invite joins as requests
 * (`<membership_approval_request>` answers, `created_membership_requests` notifications) that admins list
 * (`membership_approval_requests`) and approve or reject (`membership_requests_action`).
 */
export class Communities {
  constructor(private readonly network: Network, private readonly groups: Groups) {}

  /**
   * A community and its announcement group, with the same members, both addressed as `addressingMode` says
   * (LID-addressed as WhatsApp creates communities now: whatsmeow's group.go parses a community's metadata as
   * any group's, `addressing_mode` included).
   */
  create(creator: Account, subject: string, description: string | undefined, numbers: string[], membersAddGroups = false, addressingMode: AddressingMode = 'pn'): Group {
    const community = this.groups.create(creator, subject, numbers, { parent: true, description, membersAddGroups, addressingMode });
    const others = [...community.members.keys()].filter((n) => n !== creator.number);
    this.groups.create(creator, subject, others, { linkedParent: community.jid, defaultSubGroup: true, announce: true, addressingMode });
    return community;
  }

  /**
   * A new group inside a community, addressed as the community is: its admins create them, or any member when the
   * community lets members add groups.
   */
  createLinked(actor: Account, parentJid: string, subject: string, numbers: string[]): Group {
    const parent = this.community(parentJid, actor, true);
    return this.groups.create(actor, subject, numbers, { linkedParent: parent.jid, addressingMode: parent.addressingMode });
  }

  /**
   * Links an existing group to a community, or unlinks it: the actor must be an admin of the group and of the
   * community, or only a member of a community that lets members add groups.
   */
  link(actor: Account, parentJid: string, groupJid: string, linked: boolean): void {
    const parent = this.community(parentJid, actor, true);
    const group = this.groups.asAdmin(groupJid, actor);
    if (group.parent || group.defaultSubGroup) throw new IqError(406, 'not-acceptable');
    if (linked && group.linkedParent && group.linkedParent !== parent.jid) throw new IqError(409, 'conflict');
    if (!linked && group.linkedParent !== parent.jid) throw new IqError(404, 'item-not-found');
    group.linkedParent = linked ? parent.jid : undefined;
    const child: BinaryNode = linked
      ? { tag: 'link', attrs: { link_type: 'sub_group' }, content: [{ tag: 'group', attrs: { jid: group.jid, subject: group.subject } }] }
      : { tag: 'unlink', attrs: { unlink_type: 'sub_group' }, content: [{ tag: 'group', attrs: { jid: group.jid, subject: group.subject } }] };
    this.groups.notify(parent, actor, child);
    this.groups.notify(group, actor, child);
  }

  /** The community's groups, its announcement group first. */
  subGroups(parent: Group): Group[] {
    return this.groups.all().filter((g) => g.linkedParent === parent.jid).sort((a, b) => Number(b.defaultSubGroup) - Number(a.defaultSubGroup));
  }

  /** Leaves a community and every group of it the account is in. */
  leave(account: Account, parentJid: string): void {
    const parent = this.groups.asMember(parentJid, account);
    for (const group of this.subGroups(parent)) if (group.members.has(account.number)) this.groups.leave(group, account);
    this.groups.leave(parent, account);
  }

  setJoinApproval(group: Group, actor: Account, on: boolean): void {
    group.joinApproval = on;
    this.groups.notify(group, actor, { tag: 'membership_approval_mode', attrs: {}, content: [{ tag: 'group_join', attrs: { state: on ? 'on' : 'off' } }] });
  }

  /**
   * An admin approves (the requester joins) or rejects requests; each number gets a status: 200, or 404
   * when it has no pending request.
   */
  handleRequests(group: Group, actor: Account, action: RequestAction, numbers: string[]): Array<{ number: string; status: number }> {
    return numbers.map((number) => {
      if (!group.requests.delete(number)) return { number, status: 404 };
      const participant = [{ tag: 'participant', attrs: this.groups.addressing(group).participant(number) }];
      if (action === 'approve') {
        if (group.members.size >= MAX_MEMBERS) return { number, status: PARTICIPANT_CODES.value.full };
        group.members.set(number, 'member');
        this.groups.notify(group, actor, { tag: 'add', attrs: { reason: 'approval' }, content: participant });
      } else {
        this.groups.notify(group, actor, { tag: 'revoked_membership_requests', attrs: {}, content: participant }, [number]);
      }
      return { number, status: 200 };
    });
  }

  /**
   * The community and join-request iqs (a first child this feature does not know answers undefined): what
   * `groupIqFeature` asks before its own group iqs.
   */
  answer(account: Account, iq: BinaryNode, child: BinaryNode, numbersOf: (node: BinaryNode) => string[]): BinaryNode[] | null | undefined {
    const to = iq.attrs.to ?? '';
    const set = iq.attrs.type === 'set';
    if (to === '@g.us') {
      if (set && child.tag === 'create' && getBinaryNodeChild(child, 'parent')) {
        const description = bodyOf(getBinaryNodeChild(getBinaryNodeChild(child, 'description'), 'body'));
        // Baileys' communityCreate asks that members may add groups (`<allow_non_admin_sub_group_creation/>`).
        const membersAddGroups = !!getBinaryNodeChild(child, 'allow_non_admin_sub_group_creation');
        return [this.groups.node(this.create(account, child.attrs.subject ?? '', description || undefined, numbersOf(child), membersAddGroups, this.groups.clientAddressing))];
      }
      const linkedParent = getBinaryNodeChild(child, 'linked_parent')?.attrs.jid;
      if (set && child.tag === 'create' && linkedParent) {
        return [this.groups.node(this.createLinked(account, linkedParent, child.attrs.subject ?? '', numbersOf(child)))];
      }
      const community = getBinaryNodeChild(child, 'community');
      if (set && child.tag === 'leave' && community) {
        this.leave(account, community.attrs.id ?? '');
        return [{ tag: 'leave', attrs: {} }];
      }
      return null;
    }
    switch (`${set ? 'set' : 'get'} ${child.tag}`) {
      case 'get sub_groups': {
        const parent = this.groups.asMember(to, account);
        if (!parent.parent) throw new IqError(406, 'not-acceptable');
        return [{ tag: 'sub_groups', attrs: {}, content: this.subGroups(parent).map((g) => ({
          tag: 'group',
          attrs: {
            id: g.id, subject: g.subject, s_t: String(g.subjectTime), creation: String(g.creation),
            ...this.groups.addressing(g).attrs(numberOf(g.creator), 'creator', 'creator_pn'), size: String(g.members.size),
          },
          content: g.defaultSubGroup ? [{ tag: 'default_sub_group', attrs: {} }] : undefined,
        })) }];
      }
      case 'set links': {
        for (const link of getBinaryNodeChildren(child, 'link')) {
          for (const group of getBinaryNodeChildren(link, 'group')) this.link(account, to, group.attrs.jid ?? '', true);
        }
        return undefined;
      }
      case 'set unlink':
        for (const group of getBinaryNodeChildren(child, 'group')) this.link(account, to, group.attrs.jid ?? '', false);
        return undefined;
      case 'set membership_approval_mode': {
        const state = (getBinaryNodeChild(child, 'group_join') ?? getBinaryNodeChild(child, 'community_join'))?.attrs.state;
        if (state !== 'on' && state !== 'off') throw new IqError(400, 'bad-request');
        this.setJoinApproval(this.groups.asAdmin(to, account), account, state === 'on');
        return undefined;
      }
      case 'get membership_approval_requests': {
        const group = this.groups.asAdmin(to, account);
        return [{ tag: 'membership_approval_requests', attrs: {}, content: [...group.requests].map(([number, time]) => ({
          tag: 'membership_approval_request',
          // A LID group names the requester by LID with `phone_number` (whatsmeow parseParticipant, Baileys' join-request list keeps both).
          attrs: { ...(group.addressingMode === 'lid' ? this.groups.addressing(group).participant(number) : { jid: pn(number), ...this.lidOf(number) }),
            request_time: String(time), request_method: 'invite_link' },
        })) }];
      }
      case 'set membership_requests_action': {
        const group = this.groups.asAdmin(to, account);
        const content: BinaryNode[] = [];
        for (const action of Array.isArray(child.content) ? child.content : []) {
          if (action.tag !== 'approve' && action.tag !== 'reject') throw new IqError(400, 'bad-request');
          const results = this.handleRequests(group, account, action.tag, numbersOf(action));
          content.push({ tag: action.tag, attrs: {}, content: results.map(({ number, status }) => ({
            tag: 'participant', attrs: { ...this.groups.addressing(group).participant(number), ...(status === 200 ? {} : { error: String(status) }) },
          })) });
        }
        return [{ tag: 'membership_requests_action', attrs: {}, content }];
      }
      default:
        return null;
    }
  }

  /**
   * The community of a JID, for one of its admins (401 otherwise, 406 when the group is no community); with
   * `addingGroups`, for any member of a community that lets members add groups.
   */
  private community(jid: string, actor: Account, addingGroups = false): Group {
    const member = this.groups.asMember(jid, actor);
    const parent = addingGroups && member.membersAddGroups ? member : this.groups.asAdmin(jid, actor);
    if (!parent.parent) throw new IqError(406, 'not-acceptable');
    return parent;
  }

  private lidOf(number: string): Record<string, string> {
    const account = this.network.accounts.get(number);
    return account ? { lid: `${account.lid}@lid` } : {};
  }
}
