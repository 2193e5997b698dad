import { createHash, randomBytes, randomInt } from 'node:crypto';
import type { BinaryNode } from '@whiskeysockets/baileys';
import { stanzaId, unixNow } from '../network/network.js';
import type { Network } from '../network/network.js';
import type { Account } from '../network/model.js';
import { IqError } from '../network/network.js';
import { SimError } from '../network/errors.js';
import { GroupAddressing, numberOf, type AddressingMode } from './group-addressing.js';
import { PARTICIPANT_CODES } from '../verdicts.js';
import { addRequest, mayAdd, PRIVACY_REFUSED, type MemberResult } from './group-adds.js';

export type Role = 'member' | 'admin' | 'superadmin';

/** A group: its members (accounts, by number) with their roles, and its settings. */
export interface Group {
  /** The group's id (`120363…`); its JID is `id@g.us`. */
  id: string;
  jid: string;
  subject: string;
  subjectOwner: string;
  subjectTime: number;
  creation: number;
  creator: string;
  description: { id: string; body: string; owner: string; time: number } | undefined;
  /** Only admins send (`announcement`). */
  announce: boolean;
  /** Only admins edit the group info (`locked`). */
  restrict: boolean;
  inviteCode: string;
  members: Map<string, Role>;
  /** A community (a parent group, `<parent>`): its groups name it as their `linkedParent`. */
  parent: boolean;
  /** The community (`id@g.us`) this group belongs to, if any (`<linked_parent>`). */
  linkedParent: string | undefined;
  /** The community's announcement group, which the server creates with it (`<default_sub_group>`). */
  defaultSubGroup: boolean;
  /** Joining by invite needs an admin's approval (`<membership_approval_mode>`). */
  joinApproval: boolean;
  /** Pending join requests: number → request time (Unix seconds). */
  requests: Map<string, number>;
  /** The disappearing-messages timer in seconds (`<ephemeral expiration>`), 0 when off. */
  ephemeral: number;
  /** Who may add members (`<member_add_mode>`): admins only, or every member. */
  memberAddMode: MemberAddMode;
  /** A community whose members (not only its admins) may add groups to it (`<allow_non_admin_sub_group_creation>`). */
  membersAddGroups: boolean;
  /** The group's picture (a JPEG on the media host), set through `w:profile:picture` (group-pictures.ts). */
  picture?: { id: string; data: Buffer; directPath: string; url: string } | undefined;
  /** How the group names its members on the wire: by number (`pn`) or by LID (`lid`, group-addressing.ts). */
  addressingMode: AddressingMode;
}

/** WhatsApp's member-add modes (whatsmeow types/group.go GroupMemberAddMode). */
export type MemberAddMode = 'admin_add' | 'all_member_add';
export const MEMBER_ADD_MODES: readonly MemberAddMode[] = ['admin_add', 'all_member_add'];

/** The settings a `<tag/>` of w:g2 turns on or off: who sends, who edits the info, who adds groups to a community. */
export const GROUP_SETTINGS = [
  'announcement', 'not_announcement', 'locked', 'unlocked', 'allow_non_admin_sub_group_creation', 'not_allow_non_admin_sub_group_creation',
] as const;
export type GroupSetting = (typeof GROUP_SETTINGS)[number];

/** What a new group is besides its subject and members: a community, a community's group, its description. */
export interface GroupKind {
  parent?: boolean;
  linkedParent?: string;
  defaultSubGroup?: boolean;
  announce?: boolean;
  description?: string;
  /** A community whose members may add groups (Baileys' communityCreate asks for it). */
  membersAddGroups?: boolean;
  /** `lid`: a LID-addressed group, as WhatsApp creates groups now (group-addressing.ts); `pn` by default. */
  addressingMode?: AddressingMode;
}

/** Most members a group may have (WhatsApp's limit is 1024). */
export const MAX_MEMBERS = 1024;
/** WhatsApp's subject limit. */
export const MAX_SUBJECT = 100;

const pn = (number: string): string => `${number}@s.whatsapp.net`;
const newInviteCode = (): string => randomBytes(16).toString('base64url').slice(0, 22);

/**
 * The network's groups (w:g2): membership, roles and settings, each change told to every member's
 * companions as a `<notification type="w:gp2">` (Baileys Socket/messages-recv.js handleGroupNotification
 * turns them into groups.upsert / group-participants.update and stub messages). Groups are addressed by
 * phone number (`addressing_mode="pn"`) unless created LID-addressed (`GroupKind.addressingMode`).
 */
export class Groups {
  private readonly groups = new Map<string, Group>();
  /** How groups that clients create are addressed (SimulatorOptions.groupAddressing). */
  clientAddressing: AddressingMode = 'pn';
  /** Codes revoked so far (WhatsApp answers them 410 gone, not as codes it never issued). */
  private readonly revokedCodes = new Set<string>();

  constructor(private readonly network: Network) {}

  all(): Group[] {
    return [...this.groups.values()];
  }

  /** The group of a JID or id; 404 item-not-found when there is none. */
  get(jidOrId: string): Group {
    const group = this.groups.get(jidOrId.split('@')[0]!);
    if (!group) throw new IqError(404, 'item-not-found');
    return group;
  }

  /** The group, for a member only (403 forbidden otherwise). */
  asMember(jid: string, account: Account): Group {
    const group = this.get(jid);
    if (!group.members.has(account.number)) throw new IqError(403, 'forbidden');
    return group;
  }

  /** The group, for an admin only (401 not-authorized for other members). */
  asAdmin(jid: string, account: Account): Group {
    const group = this.asMember(jid, account);
    if (group.members.get(account.number) === 'member') throw new IqError(401, 'not-authorized');
    return group;
  }

  /** The group, for a member who may edit its info: any member, or only admins once it is `locked`. */
  asEditor(jid: string, account: Account): Group {
    const group = this.asMember(jid, account);
    return group.restrict ? this.asAdmin(jid, account) : group;
  }

  create(creator: Account, subject: string, numbers: string[], kind: GroupKind = {}): Group {
    if (!subject || subject.length > MAX_SUBJECT) throw new IqError(406, 'not-acceptable');
    let id: string;
    do id = `120363${randomInt(100_000_000, 999_999_999)}${randomInt(100, 999)}`; while (this.groups.has(id));
    const now = Number(unixNow());
    const group: Group = {
      id, jid: `${id}@g.us`, subject, subjectOwner: pn(creator.number), subjectTime: now, creation: now, creator: pn(creator.number),
      description: kind.description ? { id: stanzaId(), body: kind.description, owner: pn(creator.number), time: now } : undefined,
      announce: kind.announce ?? false, restrict: false, inviteCode: newInviteCode(), members: new Map([[creator.number, 'superadmin']]),
      parent: kind.parent ?? false, linkedParent: kind.linkedParent, defaultSubGroup: kind.defaultSubGroup ?? false, joinApproval: false, requests: new Map(), ephemeral: 0,
      // New groups let only admins add members (the simulator's default; WhatsApp lets the creator choose).
      memberAddMode: 'admin_add', membersAddGroups: kind.membersAddGroups ?? false, addressingMode: kind.addressingMode ?? 'pn',
    };
    // Someone whose `groupadd` privacy refuses the creator is left out, as an add would refuse them.
    for (const number of numbers) if (mayAdd(this.network, creator, number) && group.members.size < MAX_MEMBERS) group.members.set(number, 'member');
    this.groups.set(id, group);
    this.notify(group, creator, { tag: 'create', attrs: {}, content: [this.node(group)] });
    return group;
  }

  /**
   * Adds, removes, promotes or demotes members. Each asked number gets a status: 200, 404 (not on
   * WhatsApp / not a member), 409 (already a member), 419 (the group is full) and 403 (the creator removed or
   * demoted), PARTICIPANT_CODES. An add that the person's `groupadd` privacy refuses is 403 with an
   * `addRequest`: the invitation WhatsApp offers the admin to send instead (whatsmeow group.go parseParticipant
   * reads `<participant error="403"><add_request code expiration/></participant>` as GroupParticipant.AddRequest;
   * Baileys rc14 groupParticipantsUpdate passes the node as `content`; group-adds.ts). The simulator does not
   * accept it yet (v4 invites).
   */
  changeMembers(group: Group, actor: Account, action: 'add' | 'remove' | 'promote' | 'demote', numbers: string[]): MemberResult[] {
    const results = numbers.map((number) => {
      const status = this.change(group, actor, action, number);
      const refused = action === 'add' && status === PRIVACY_REFUSED;
      return { number, status, ...(refused ? { addRequest: addRequest(newInviteCode()) } : {}) };
    });
    const changed = results.filter((r) => r.status === 200).map((r) => r.number);
    if (changed.length) {
      const participants = changed.map((number) => ({ tag: 'participant', attrs: this.addressing(group).participant(number) }));
      this.notify(group, actor, { tag: action, attrs: {}, content: participants }, action === 'remove' ? changed : []);
    }
    return results;
  }

  private change(group: Group, actor: Account, action: 'add' | 'remove' | 'promote' | 'demote', number: string): number {
    const role = group.members.get(number);
    if (action === 'add') {
      if (!this.network.accounts.has(number)) return 404;
      if (role) return 409;
      if (!mayAdd(this.network, actor, number)) return PRIVACY_REFUSED;
      if (group.members.size >= MAX_MEMBERS) return PARTICIPANT_CODES.value.full;
      group.members.set(number, 'member');
      return 200;
    }
    if (!role) return 404;
    if (role === 'superadmin' && action !== 'promote') return PARTICIPANT_CODES.value.creator;
    if (action === 'remove') group.members.delete(number);
    else group.members.set(number, action === 'promote' ? (role === 'superadmin' ? role : 'admin') : 'member');
    return 200;
  }

  setSubject(group: Group, actor: Account, subject: string): void {
    if (!subject || subject.length > MAX_SUBJECT) throw new IqError(406, 'not-acceptable');
    Object.assign(group, { subject, subjectOwner: pn(actor.number), subjectTime: Number(unixNow()) });
    this.notify(group, actor, { tag: 'subject', attrs: { subject, ...this.addressing(group).attrs(actor.number, 's_o', 's_o_pn'), s_t: String(group.subjectTime) } });
  }

  setDescription(group: Group, actor: Account, body: string | undefined, id: string | undefined): void {
    group.description = body ? { id: id ?? stanzaId(), body, owner: pn(actor.number), time: Number(unixNow()) } : undefined;
    const content = body ? [{ tag: 'body', attrs: {}, content: Buffer.from(body) }] : undefined;
    this.notify(group, actor, { tag: 'description', attrs: { id: group.description?.id ?? stanzaId(), ...(body ? {} : { delete: 'true' }) }, content });
  }

  /**
   * `announcement`/`not_announcement` (who sends), `locked`/`unlocked` (who edits the group info) and, for a
   * community, `allow_non_admin_sub_group_creation` or its `not_` form (who adds groups; 406 for a group).
   */
  setting(group: Group, actor: Account, setting: GroupSetting): void {
    if (setting === 'announcement' || setting === 'not_announcement') group.announce = setting === 'announcement';
    else if (setting === 'locked' || setting === 'unlocked') group.restrict = setting === 'locked';
    else if (!group.parent) throw new IqError(406, 'not-acceptable');
    else group.membersAddGroups = setting === 'allow_non_admin_sub_group_creation';
    this.notify(group, actor, { tag: setting, attrs: {} });
  }

  /** Who may add members: `<member_add_mode>admin_add|all_member_add</member_add_mode>` (Baileys groupMemberAddMode, communityMemberAddMode). */
  setMemberAddMode(group: Group, actor: Account, mode: MemberAddMode): void {
    group.memberAddMode = mode;
    // Baileys handleGroupNotification reads the mode from the child's content (GROUP_MEMBER_ADD_MODE stub).
    this.notify(group, actor, { tag: 'member_add_mode', attrs: {}, content: mode });
  }

  /**
   * Turns disappearing messages on (`<ephemeral expiration>`) or off (`<not_ephemeral/>`), told as such to the
   * members (whatsmeow group.go parseGroupChange reads both; Baileys handleGroupNotification makes them an
   * EPHEMERAL_SETTING protocol message, which its process-message turns into `chats.update`).
   */
  setEphemeral(group: Group, actor: Account, seconds: number): void {
    group.ephemeral = seconds;
    this.notify(group, actor, seconds > 0 ? { tag: 'ephemeral', attrs: { expiration: String(seconds) } } : { tag: 'not_ephemeral', attrs: {} });
  }

  revokeInvite(group: Group, actor: Account): string {
    this.revokedCodes.add(group.inviteCode);
    group.inviteCode = newInviteCode();
    this.notify(group, actor, { tag: 'invite', attrs: { code: group.inviteCode } });
    return group.inviteCode;
  }

  /**
   * The group an invite code leads to. A revoked code is 410 gone, any other unknown code 406 not-acceptable:
   * the answers whatsmeow's GetGroupInfoFromLink and JoinGroupWithLink (group.go) read as ErrInviteLinkRevoked
   * and ErrInviteLinkInvalid.
   */
  byInvite(code: string): Group {
    const group = this.all().find((g) => g.inviteCode === code);
    if (group) return group;
    throw this.revokedCodes.has(code) ? new IqError(410, 'gone') : new IqError(406, 'not-acceptable');
  }

  /** Joins by invite code, unless the group wants approval: then the account's request waits for an admin (`requested`). */
  join(group: Group, account: Account): 'joined' | 'requested' {
    if (group.members.has(account.number)) return 'joined';
    if (group.members.size >= MAX_MEMBERS) throw new IqError(406, 'not-acceptable');
    if (group.joinApproval) {
      group.requests.set(account.number, Number(unixNow()));
      this.notify(group, account, { tag: 'created_membership_requests', attrs: { request_method: 'invite_link' }, content: [{ tag: 'participant', attrs: this.addressing(group).participant(account.number) }] });
      return 'requested';
    }
    group.members.set(account.number, 'member');
    this.notify(group, account, { tag: 'add', attrs: { reason: 'invite' }, content: [{ tag: 'participant', attrs: this.addressing(group).participant(account.number) }] });
    return 'joined';
  }

  leave(group: Group, account: Account): void {
    if (!group.members.delete(account.number)) throw new IqError(403, 'forbidden');
    this.notify(group, account, { tag: 'remove', attrs: {}, content: [{ tag: 'participant', attrs: this.addressing(group).participant(account.number) }] }, [account.number]);
  }

  /** The group's `<group>` node, as metadata queries and the create notification carry it. */
  node(group: Group): BinaryNode {
    const addressing = this.addressing(group);
    const content: BinaryNode[] = [...group.members].map(([number, role]) => {
      const account = this.network.accounts.get(number);
      // A PN group names the LID beside (`lid`), a LID group the number (`phone_number`): Baileys extractGroupMetadata reads either.
      const named = addressing.mode === 'lid' ? addressing.participant(number) : { jid: pn(number), ...(account ? { lid: `${account.lid}@lid` } : {}) };
      return { tag: 'participant', attrs: { ...named, ...(role === 'member' ? {} : { type: role }) } };
    });
    if (group.description) {
      const { id, body, owner, time } = group.description;
      content.push({ tag: 'description', attrs: { id, ...addressing.attrs(numberOf(owner), 'participant', 'participant_pn'), t: String(time) }, content: [{ tag: 'body', attrs: {}, content: Buffer.from(body) }] });
    }
    if (group.announce) content.push({ tag: 'announcement', attrs: {} });
    if (group.restrict) content.push({ tag: 'locked', attrs: {} });
    // whatsmeow parseGroupNode: `<ephemeral expiration>` (Baileys extractGroupMetadata: ephemeralDuration).
    if (group.ephemeral > 0) content.push({ tag: 'ephemeral', attrs: { expiration: String(group.ephemeral) } });
    // Communities as whatsmeow's parseGroupNode reads them (group.go): parent, linked_parent, default_sub_group.
    if (group.parent) content.push({ tag: 'parent', attrs: { default_membership_approval_mode: 'request_required' } });
    if (group.linkedParent) content.push({ tag: 'linked_parent', attrs: { jid: group.linkedParent } });
    if (group.defaultSubGroup) content.push({ tag: 'default_sub_group', attrs: {} });
    // Baileys extractGroupMetadata and whatsmeow parseGroupNode read the mode as the child's text.
    content.push({ tag: 'member_add_mode', attrs: {}, content: group.memberAddMode });
    // WhatsApp Web's group parser (hasChild "allow_non_admin_sub_group_creation") reads a community's "who adds groups".
    if (group.membersAddGroups) content.push({ tag: 'allow_non_admin_sub_group_creation', attrs: {} });
    if (group.joinApproval) content.push({ tag: 'membership_approval_mode', attrs: {}, content: [{ tag: 'group_join', attrs: { state: 'on' } }] });
    return {
      tag: 'group',
      attrs: {
        id: group.id, subject: group.subject, ...addressing.attrs(numberOf(group.subjectOwner), 's_o', 's_o_pn'), s_t: String(group.subjectTime),
        creation: String(group.creation), ...addressing.attrs(numberOf(group.creator), 'creator', 'creator_pn'), size: String(group.members.size),
        addressing_mode: group.addressingMode,
      },
      content,
    };
  }

  /** How the group names members on the wire (group-addressing.ts). */
  addressing(group: Group): GroupAddressing {
    return new GroupAddressing(this.network, group.addressingMode);
  }

  /** Tells every member's companions (and those of `alsoTell`, e.g. removed members) about a change, in a `w:gp2` notification unless `type` says otherwise. */
  notify(group: Group, actor: Account, child: BinaryNode, alsoTell: string[] = [], type = 'w:gp2'): void {
    const numbers = new Set([...group.members.keys(), ...alsoTell]);
    for (const number of numbers) {
      const account = this.network.accounts.get(number);
      for (const device of account?.companions.values() ?? []) {
        this.network.deliver(device, {
          tag: 'notification',
          attrs: { from: group.jid, type, id: stanzaId(), t: unixNow(), ...this.addressing(group).device(pn(actor.number)), notify: actor.pushName },
          content: [child],
        });
      }
    }
  }
}

/** A group as the control API shows it. */
export interface GroupView {
  id: string;
  jid: string;
  subject: string;
  description: string | undefined;
  creator: string;
  creation: number;
  announce: boolean;
  restrict: boolean;
  inviteCode: string;
  members: Array<{ number: string; jid: string; role: Role }>;
  /** A community (a parent group). */
  community: boolean;
  /** The community this group is linked to. */
  linkedParent: string | undefined;
  /** The community's announcement group. */
  defaultSubGroup: boolean;
  joinApproval: boolean;
  /** Pending join requests. */
  requests: Array<{ number: string; jid: string; requestTime: number }>;
  /** The disappearing-messages timer in seconds, 0 when off. */
  ephemeral: number;
  memberAddMode: MemberAddMode;
  /** A community whose members may add groups. */
  membersAddGroups: boolean;
  /** The group's picture: its id, size and SHA-256 (hex); null without one. */
  picture: { id: string; size: number; sha256: string } | null;
  /** `pn` or `lid`: how the group names its members on the wire. */
  addressingMode: AddressingMode;
}

export function groupView(group: Group): GroupView {
  return {
    id: group.id, jid: group.jid, subject: group.subject, description: group.description?.body, creator: group.creator, creation: group.creation,
    announce: group.announce, restrict: group.restrict, inviteCode: group.inviteCode,
    members: [...group.members].map(([number, role]) => ({ number, jid: pn(number), role })),
    community: group.parent, linkedParent: group.linkedParent, defaultSubGroup: group.defaultSubGroup, joinApproval: group.joinApproval,
    requests: [...group.requests].map(([number, requestTime]) => ({ number, jid: pn(number), requestTime })),
    ephemeral: group.ephemeral, memberAddMode: group.memberAddMode, membersAddGroups: group.membersAddGroups,
    picture: group.picture ? { id: group.picture.id, size: group.picture.data.length, sha256: createHash('sha256').update(group.picture.data).digest('hex') } : null,
    addressingMode: group.addressingMode,
  };
}

const CONTROL_ERRORS: Record<number, [number, string]> = {
  404: [404, 'group_not_found'], 403: [403, 'not_a_member'], 401: [403, 'not_an_admin'], 406: [400, 'not_acceptable'],
};

/** Runs a group operation for the control API, turning the server's iq refusals into `SimError`s. */
export function asControl<T>(what: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (!(error instanceof IqError)) throw error;
    const [status, code] = CONTROL_ERRORS[error.code] ?? [400, 'refused'];
    throw new SimError(status, code, `${what}: ${error.text}`, { iqError: error.code });
  }
}
