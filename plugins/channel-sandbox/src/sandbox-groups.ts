import { randomInt } from 'node:crypto';
import { ForbiddenError, NotFoundError, type Community, type Group, type GroupParticipant, type InviteInfo, type JoinRequest, type MediaInput, type ParticipantResult, type Storage } from '@parley/core';
import { jidUser, LID_SUFFIX, USER_SUFFIX } from '@parley/whatsapp-proto';
import { communityView, linkGroup, linkedGroups, unlinkDissolved } from './sandbox-communities.js';
import {
  GROUP_PICTURES_NAMESPACE, GROUPS_NAMESPACE, INVITES_NAMESPACE, isMember, memberJids, roleOf, type GroupKind, type GroupSettings,
  type StoredGroup, type StoredPicture,
} from './sandbox-group-state.js';
import { GroupTx } from './sandbox-group-tx.js';
import { lidOf } from './sandbox-ids.js';
import type { SandboxNetwork } from './sandbox-network.js';

export { groupPicture, GROUPS_NAMESPACE, type GroupKind, type GroupSettings, type StoredGroup } from './sandbox-group-state.js';

const INVITE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';


function notFound(kind: GroupKind): NotFoundError {
  return new NotFoundError(kind, `${kind}_not_found`);
}

function requireAdmin(g: StoredGroup, jid: string): void {
  if (!roleOf(g, jid)) throw new ForbiddenError(`only admins of the ${g.kind} can do this`, 'not_admin');
}

/**
 * Groups and communities of the sandbox network, shared by every sandbox instance: one record per
 * group, its members' phones notified (`group.participants`, `group.update`, the group chat) on every
 * change. Every change runs in one serialized unit of work, so concurrent requests never lose updates.
 */
export class SandboxGroupDirectory {
  constructor(
    private readonly network: SandboxNetwork,
    private readonly storage: Storage,
    private readonly pictureUrl: (id: string, sha: string) => string,
  ) {}

  /** Unix seconds on the network's clock. */
  private seconds(): number {
    return Math.floor(this.network.now() / 1000);
  }

  private run<T>(work: (tx: GroupTx) => Promise<T>): Promise<T> {
    return this.network.serialize('sandbox-groups', async () => {
      const tx = new GroupTx(this.storage);
      const result = await work(tx);
      await tx.commit(this.network);
      return result;
    });
  }

  /** A group of `kind` that `actor` belongs to; 404 otherwise (non-members cannot see a group). */
  private async joined(tx: GroupTx, actor: string, id: string, kind: GroupKind): Promise<StoredGroup> {
    const g = await tx.get(id);
    if (!g || g.kind !== kind || !isMember(g, actor)) throw notFound(kind);
    return g;
  }

  /** The phone-number JID behind a participant (a LID is resolved through the network's numbers), or null when no phone holds it. */
  private async resolve(jid: string): Promise<string | null> {
    if (jid.endsWith(LID_SUFFIX)) {
      const number = (await this.network.numbers()).find((n) => lidOf(n) === jid);
      return number ? `${number}${USER_SUFFIX}` : null;
    }
    if (!jid.endsWith(USER_SUFFIX)) return null;
    return (await this.network.instanceOf(jidUser(jid))) ? jid : null;
  }

  /**
   * One result per given participant, in order: `judge` gets each one resolved (null when no phone
   * holds it) and answers its status, noting the participants it acts on.
   */
  private async judgeEach(given: string[], judge: (jid: string | null, given: string) => ParticipantResult['status']): Promise<ParticipantResult[]> {
    const results: ParticipantResult[] = [];
    for (const jid of given) results.push({ jid, status: judge(await this.resolve(jid), jid) });
    return results;
  }

  groupView(g: StoredGroup): Group {
    return {
      id: g.id, subject: g.subject, owner: g.owner, creation: g.creation, desc: g.desc,
      participants: g.participants.map((p) => ({ ...p })),
      announce: g.announce, restrict: g.restrict, ephemeralDuration: g.ephemeralDuration, joinApprovalMode: g.joinApprovalMode,
      memberAddMode: g.memberAddMode,
      ...(g.linkedParent ? { linkedParent: g.linkedParent } : {}),
      ...(g.pictureSha ? { imgUrl: this.pictureUrl(g.id, g.pictureSha) } : {}),
    };
  }

  communityView(g: StoredGroup): Community {
    return communityView(g, this.pictureUrl);
  }

  /** Every group of `kind` the actor belongs to, oldest first. */
  async list(actor: string, kind: GroupKind): Promise<StoredGroup[]> {
    const all = await this.storage.state.list<StoredGroup>(GROUPS_NAMESPACE);
    return all.map((e) => e.value).filter((g) => g.kind === kind && isMember(g, actor)).sort((a, b) => a.creation - b.creation);
  }

  async get(actor: string, id: string, kind: GroupKind): Promise<StoredGroup> {
    const g = await this.storage.state.get<StoredGroup>(GROUPS_NAMESPACE, id);
    if (!g || g.kind !== kind || !isMember(g, actor)) throw notFound(kind);
    return g;
  }

  /**
   * Creates a group or community with the actor as `superadmin`. Participants no sandbox phone holds
   * are left out, as WhatsApp leaves out numbers it cannot add. A group created in a community is
   * linked to it and its members join the community.
   */
  async create(actor: string, kind: GroupKind, input: { subject: string; desc: string; participants: string[]; linkedParent?: string }): Promise<StoredGroup> {
    return this.run(async (tx) => {
      const parent = input.linkedParent ? await this.joined(tx, actor, input.linkedParent, 'community') : undefined;
      if (parent) requireAdmin(parent, actor);
      const participants: GroupParticipant[] = [{ id: actor, admin: 'superadmin' }];
      for (const given of input.participants) {
        const jid = await this.resolve(given);
        if (jid && !participants.some((p) => p.id === jid)) participants.push({ id: jid, admin: null });
      }
      const g: StoredGroup = {
        id: await this.newGroupJid(tx), kind, subject: input.subject, desc: input.desc, owner: actor, creation: this.seconds(), participants,
        announce: false, restrict: kind === 'community', ephemeralDuration: 0, joinApprovalMode: false, memberAddMode: 'admin_add',
        inviteCode: await this.newInviteCode(), requests: [],
        ...(kind === 'community' ? { groups: [] } : {}), ...(parent ? { linkedParent: parent.id } : {}),
      };
      tx.put(g);
      await this.storage.state.put(INVITES_NAMESPACE, g.inviteCode, g.id);
      const jids = memberJids(g);
      tx.notify(jids, { type: 'group.update', groups: [this.groupView(g)] },
        { type: 'group.participants', groupJid: g.id, action: 'add', participants: jids, author: actor });
      if (kind === 'group') tx.notify(jids, { type: 'chats.upsert', chats: [{ id: g.id, name: g.subject, timestamp: g.creation }] });
      if (parent) linkGroup(tx, parent, g, (newcomers) => this.addMembers(tx, parent, newcomers, actor));
      return g;
    });
  }

  /** Subject and description: any member may change them unless the group is locked (`restrict`). */
  async update(actor: string, id: string, kind: GroupKind, change: { subject?: string; desc?: string }): Promise<StoredGroup> {
    return this.run(async (tx) => {
      const g = await this.joined(tx, actor, id, kind);
      if (g.restrict) requireAdmin(g, actor);
      const changed: Partial<Group> & { id: string } = { id };
      if (change.subject !== undefined) g.subject = changed.subject = change.subject;
      if (change.desc !== undefined) g.desc = changed.desc = change.desc;
      tx.put(g);
      tx.notify(memberJids(g), { type: 'group.update', groups: [changed] });
      if (change.subject !== undefined && kind === 'group') tx.notify(memberJids(g), { type: 'chats.upsert', chats: [{ id, name: g.subject }] });
      return g;
    });
  }

  /** Admin settings; the members are told what changed. */
  async configure(actor: string, id: string, kind: GroupKind, settings: GroupSettings): Promise<StoredGroup> {
    return this.run(async (tx) => {
      const g = await this.joined(tx, actor, id, kind);
      requireAdmin(g, actor);
      Object.assign(g, settings);
      tx.put(g);
      tx.notify(memberJids(g), { type: 'group.update', groups: [{ id, ...settings }] });
      return g;
    });
  }

  /** Leaves a group; leaving a community also leaves its linked groups. */
  async leave(actor: string, id: string, kind: GroupKind): Promise<void> {
    await this.run(async (tx) => {
      const g = await this.joined(tx, actor, id, kind);
      await this.removeMembers(tx, g, [actor], actor);
    });
  }

  async addParticipants(actor: string, id: string, kind: GroupKind, jids: string[]): Promise<ParticipantResult[]> {
    return this.run(async (tx) => {
      const g = await this.joined(tx, actor, id, kind);
      if (g.memberAddMode !== 'all_member_add') requireAdmin(g, actor);
      const added: string[] = [];
      const results = await this.judgeEach(jids, (jid) => {
        if (!jid) return '404';
        if (isMember(g, jid) || added.includes(jid)) return '409';
        added.push(jid);
        return '200';
      });
      await this.admit(tx, g, added, actor);
      return results;
    });
  }

  /** Removes members (admins only; the creator cannot be removed). Removal from a community also removes them from its linked groups. */
  async removeParticipants(actor: string, id: string, kind: GroupKind, jids: string[]): Promise<ParticipantResult[]> {
    return this.run(async (tx) => {
      const g = await this.joined(tx, actor, id, kind);
      requireAdmin(g, actor);
      const removed: string[] = [];
      const results = await this.judgeEach(jids, (resolved, given) => {
        const jid = resolved ?? given;
        const role = roleOf(g, jid);
        if (role === undefined || removed.includes(jid)) return '404';
        if (role === 'superadmin') return '403';
        removed.push(jid);
        return '200';
      });
      await this.removeMembers(tx, g, removed, actor);
      return results;
    });
  }

  /** Promotes members to `admin` or demotes admins to regular members; the creator stays `superadmin`. */
  async setRole(actor: string, id: string, kind: GroupKind, jids: string[], action: 'promote' | 'demote'): Promise<ParticipantResult[]> {
    return this.run(async (tx) => {
      const g = await this.joined(tx, actor, id, kind);
      requireAdmin(g, actor);
      const changed: string[] = [];
      const results = await this.judgeEach(jids, (resolved, given) => {
        const jid = resolved ?? given;
        const member = g.participants.find((p) => p.id === jid);
        if (!member) return '404';
        if (member.admin === 'superadmin') return action === 'promote' ? '200' : '403';
        const next = action === 'promote' ? 'admin' : null;
        if (member.admin !== next) {
          member.admin = next;
          changed.push(jid);
        }
        return '200';
      });
      if (changed.length) {
        tx.put(g);
        tx.notify(memberJids(g), { type: 'group.participants', groupJid: id, action, participants: changed, author: actor });
      }
      return results;
    });
  }

  async joinRequests(actor: string, id: string, kind: GroupKind): Promise<JoinRequest[]> {
    const g = await this.get(actor, id, kind);
    requireAdmin(g, actor);
    return g.requests.map((r) => ({ ...r }));
  }

  /** Approves (the requester becomes a member) or rejects pending join requests. */
  async handleJoinRequests(actor: string, id: string, kind: GroupKind, jids: string[], action: 'approve' | 'reject'): Promise<ParticipantResult[]> {
    return this.run(async (tx) => {
      const g = await this.joined(tx, actor, id, kind);
      requireAdmin(g, actor);
      const approved: string[] = [];
      const results = await this.judgeEach(jids, (resolved, given) => {
        const jid = resolved ?? given;
        if (!g.requests.some((r) => r.jid === jid)) return '404';
        g.requests = g.requests.filter((r) => r.jid !== jid);
        if (action === 'approve' && !isMember(g, jid)) approved.push(jid);
        return '200';
      });
      tx.put(g);
      await this.admit(tx, g, approved, actor);
      return results;
    });
  }

  async inviteCode(actor: string, id: string, kind: GroupKind): Promise<string> {
    const g = await this.get(actor, id, kind);
    requireAdmin(g, actor);
    return g.inviteCode;
  }

  private async byInvite(code: string, kind: GroupKind): Promise<StoredGroup> {
    const id = await this.storage.state.get<string>(INVITES_NAMESPACE, code);
    const g = id ? await this.storage.state.get<StoredGroup>(GROUPS_NAMESPACE, id) : null;
    if (!g || g.kind !== kind) throw new NotFoundError('invite code', 'invite_not_found');
    return g;
  }

  /** What an invite code leads to; anyone on the network may ask. */
  async inviteInfo(code: string, kind: GroupKind): Promise<InviteInfo> {
    const g = await this.byInvite(code, kind);
    return {
      id: g.id, subject: g.subject, owner: g.owner, desc: g.desc, size: g.participants.length, creation: g.creation,
      isCommunity: kind === 'community',
    };
  }

  /**
   * Joins through an invite code and answers the group JID. With join approval on, a non-member's
   * join becomes a pending request (`requestMethod` `invite_link`) that an admin approves or rejects.
   */
  async acceptInvite(actor: string, code: string, kind: GroupKind): Promise<string> {
    const { id } = await this.byInvite(code, kind);
    return this.run(async (tx) => {
      const g = await tx.get(id);
      if (!g) throw new NotFoundError('invite code', 'invite_not_found');
      if (isMember(g, actor)) return id;
      if (g.joinApprovalMode) {
        if (!g.requests.some((r) => r.jid === actor)) g.requests.push({ jid: actor, requestTime: this.seconds(), requestMethod: 'invite_link' });
        tx.put(g);
        return id;
      }
      await this.admit(tx, g, [actor], actor);
      return id;
    });
  }

  /** Sets (or, with null, removes) the picture; locked groups accept it from admins only. */
  async setPicture(actor: string, id: string, kind: GroupKind, image: MediaInput | null): Promise<StoredGroup> {
    return this.run(async (tx) => {
      const g = await this.joined(tx, actor, id, kind);
      if (g.restrict) requireAdmin(g, actor);
      if (image) {
        const picture: StoredPicture = { mimetype: image.mimetype, data: image.data.toString('base64'), sha256: image.sha256 };
        await this.storage.state.put(GROUP_PICTURES_NAMESPACE, id, picture);
        g.pictureSha = image.sha256;
      } else {
        await this.storage.state.delete(GROUP_PICTURES_NAMESPACE, id);
        delete g.pictureSha;
      }
      tx.put(g);
      return g;
    });
  }

  /** Adds members and tells everyone; members of a linked group join its community too. */
  private async admit(tx: GroupTx, g: StoredGroup, jids: string[], author: string): Promise<void> {
    if (!jids.length) return;
    g.requests = g.requests.filter((r) => !jids.includes(r.jid));
    this.addMembers(tx, g, jids, author);
    if (g.kind === 'group') tx.notify(jids, { type: 'chats.upsert', chats: [{ id: g.id, name: g.subject, timestamp: this.seconds() }] });
    if (g.linkedParent) {
      const parent = await tx.get(g.linkedParent);
      if (parent) this.addMembers(tx, parent, jids.filter((jid) => !isMember(parent, jid)), author);
    }
  }

  private addMembers(tx: GroupTx, g: StoredGroup, jids: string[], author: string): void {
    if (!jids.length) return;
    g.participants.push(...jids.map((id) => ({ id, admin: null })));
    tx.put(g);
    tx.notify(memberJids(g), { type: 'group.participants', groupJid: g.id, action: 'add', participants: jids, author });
  }

  /**
   * Removes members, telling them and everyone else; a group left without admins gets its oldest
   * member promoted, and one left empty is deleted. Removal from a community cascades to its groups.
   */
  private async removeMembers(tx: GroupTx, g: StoredGroup, jids: string[], author: string): Promise<void> {
    if (!jids.length) return;
    tx.notify(memberJids(g), { type: 'group.participants', groupJid: g.id, action: 'remove', participants: jids, author });
    g.participants = g.participants.filter((p) => !jids.includes(p.id));
    if (g.participants.length && !g.participants.some((p) => p.admin)) {
      const heir = g.participants[0]!;
      heir.admin = 'admin';
      tx.notify(memberJids(g), { type: 'group.participants', groupJid: g.id, action: 'promote', participants: [heir.id], author });
    }
    if (g.participants.length) tx.put(g);
    else await this.dissolve(tx, g);
    for (const child of await linkedGroups(tx, g)) {
      const present = jids.filter((jid) => isMember(child, jid));
      if (present.length) await this.removeMembers(tx, child, present, author);
    }
  }

  /** Deletes an empty group, unlinking it from its community (or a community from its groups). */
  private async dissolve(tx: GroupTx, g: StoredGroup): Promise<void> {
    tx.drop(g);
    await unlinkDissolved(tx, g);
  }

  /** A fresh group JID in WhatsApp's style (`120363` + 12 digits). */
  private async newGroupJid(tx: GroupTx): Promise<string> {
    for (;;) {
      const id = `120363${randomInt(100_000_000_000, 999_999_999_999)}@g.us`;
      if (!(await tx.get(id))) return id;
    }
  }

  /** A fresh 22-character invite code. */
  private async newInviteCode(): Promise<string> {
    for (;;) {
      const code = Array.from({ length: 22 }, () => INVITE_ALPHABET[randomInt(INVITE_ALPHABET.length)]).join('');
      if (!(await this.storage.state.get(INVITES_NAMESPACE, code))) return code;
    }
  }
}
