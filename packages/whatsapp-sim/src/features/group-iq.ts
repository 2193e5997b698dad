import { getBinaryNodeChild, getBinaryNodeChildren } from '@whiskeysockets/baileys';
import type { BinaryNode } from '@whiskeysockets/baileys';
import { IqError, splitJid } from '../network/network.js';
import type { Feature, Network } from '../network/network.js';
import type { Account } from '../network/model.js';
import { requireSession } from './prekeys.js';
import { MEMBER_ADD_MODES, type Groups, type MemberAddMode } from './groups.js';
import type { Communities } from './communities.js';
import { isDisappearingTimer } from './disappearing.js';

const text = (node: BinaryNode | undefined): string | undefined =>
  node?.content instanceof Uint8Array ? Buffer.from(node.content).toString('utf8') : typeof node?.content === 'string' ? node.content : undefined;

/** The numbers of `<participant jid>` children (PN or LID JIDs); an unknown LID stays as written, to be answered 404. */
function numbersOf(network: Network, node: BinaryNode | undefined): string[] {
  return getBinaryNodeChildren(node, 'participant').map((p) => {
    const jid = p.attrs.jid ?? '';
    return network.accountOf(jid)?.number ?? splitJid(jid)[0];
  });
}

/**
 * `xmlns="w:g2"`: group iqs as Baileys' Socket/groups.js sends them (create, metadata, participating,
 * participants, subject, description, settings, member-add mode, invite codes, join by code, leave). Refusals follow
 * whatsmeow's errors.go: 404 item-not-found (no such group), 403 forbidden (not a member), 401
 * not-authorized (not an admin), 406 not-acceptable (bad subject, full group).
 */
export function groupIqFeature(network: Network, groups: Groups, communities: Communities): Feature {
  const onGroups = (account: Account, iq: BinaryNode, child: BinaryNode): BinaryNode[] => {
    const { type } = iq.attrs;
    if (child.tag === 'create' && type === 'set') {
      const group = groups.create(account, child.attrs.subject ?? '', numbersOf(network, child), { addressingMode: groups.clientAddressing });
      return [groups.node(group)];
    }
    if (child.tag === 'participating' && type === 'get') {
      const mine = groups.all().filter((g) => g.members.has(account.number));
      return [{ tag: 'groups', attrs: {}, content: mine.map((g) => groups.node(g)) }];
    }
    if (child.tag === 'invite' && child.attrs.code) {
      const group = groups.byInvite(child.attrs.code);
      if (type === 'get') return [groups.node(group)];
      // A group that wants approval answers the request it recorded (whatsmeow JoinGroupWithLink reads it).
      if (groups.join(group, account) === 'requested') return [{ tag: 'membership_approval_request', attrs: { jid: group.jid } }];
      // Baileys reads a joined community from <community jid> (communityAcceptInvite), a group from <group jid>.
      return [{ tag: group.parent ? 'community' : 'group', attrs: { jid: group.jid } }];
    }
    if (child.tag === 'leave' && type === 'set') {
      for (const g of getBinaryNodeChildren(child, 'group')) groups.leave(groups.get(g.attrs.id ?? ''), account);
      return [{ tag: 'leave', attrs: {} }];
    }
    throw new IqError(501, 'feature-not-implemented');
  };

  const onGroup = (account: Account, iq: BinaryNode, child: BinaryNode): BinaryNode[] | undefined => {
    const to = iq.attrs.to ?? '';
    const set = iq.attrs.type === 'set';
    if (!set && child.tag === 'query') return [groups.node(groups.asMember(to, account))];
    if (!set && child.tag === 'invite') return [{ tag: 'invite', attrs: { code: groups.asAdmin(to, account).inviteCode } }];
    if (!set) throw new IqError(501, 'feature-not-implemented');
    switch (child.tag) {
      case 'add': case 'remove': case 'promote': case 'demote': {
        // With member_add_mode all_member_add every member adds; removing and roles stay the admins'.
        const open = child.tag === 'add' && groups.asMember(to, account).memberAddMode === 'all_member_add';
        const group = open ? groups.asMember(to, account) : groups.asAdmin(to, account);
        const results = groups.changeMembers(group, account, child.tag, numbersOf(network, child));
        // A LID group answers each member by LID with `phone_number` (whatsmeow group.go UpdateGroupParticipants → parseParticipant).
        const addressing = groups.addressing(group);
        return [{ tag: child.tag, attrs: {}, content: results.map(({ number, status, addRequest }) => ({
          tag: 'participant', attrs: { ...addressing.participant(number), ...(status === 200 ? {} : { error: String(status) }) },
          ...(addRequest ? { content: [{ tag: 'add_request', attrs: { code: addRequest.code, expiration: String(addRequest.expiration) } }] } : {}),
        })) }];
      }
      case 'subject':
        groups.setSubject(groups.asEditor(to, account), account, text(child) ?? '');
        return undefined;
      case 'description': {
        const group = groups.asEditor(to, account);
        groups.setDescription(group, account, child.attrs.delete === 'true' ? undefined : text(getBinaryNodeChild(child, 'body')), child.attrs.id);
        return undefined;
      }
      case 'announcement': case 'not_announcement': case 'locked': case 'unlocked':
      case 'allow_non_admin_sub_group_creation': case 'not_allow_non_admin_sub_group_creation':
        groups.setting(groups.asAdmin(to, account), account, child.tag);
        return undefined;
      case 'member_add_mode': {
        const mode = text(child);
        if (!MEMBER_ADD_MODES.includes(mode as MemberAddMode)) throw new IqError(400, 'bad-request');
        groups.setMemberAddMode(groups.asAdmin(to, account), account, mode as MemberAddMode);
        return undefined;
      }
      case 'invite':
        return [{ tag: 'invite', attrs: { code: groups.revokeInvite(groups.asAdmin(to, account), account) } }];
      case 'ephemeral': case 'not_ephemeral': {
        // Baileys groupToggleEphemeral; in a locked group only admins change it, as the group's other info.
        const group = groups.asMember(to, account);
        if (group.restrict) groups.asAdmin(to, account);
        const seconds = child.tag === 'ephemeral' ? Number(child.attrs.expiration) : 0;
        if (!isDisappearingTimer(seconds) || (child.tag === 'ephemeral' && seconds === 0)) throw new IqError(400, 'bad-request');
        groups.setEphemeral(group, account, seconds);
        return undefined;
      }
      default:
        throw new IqError(501, 'feature-not-implemented');
    }
  };

  return {
    iq: {
      'w:g2': (connection, iq) => {
        const { account } = requireSession(network, connection);
        const child = Array.isArray(iq.content) ? iq.content[0] : undefined;
        if (!child) throw new IqError(400, 'bad-request');
        const answer = communities.answer(account, iq, child, (node) => numbersOf(network, node));
        if (answer !== null) return answer;
        return iq.attrs.to === '@g.us' ? onGroups(account, iq, child) : onGroup(account, iq, child);
      },
    },
  };
}
