import { randomInt } from 'node:crypto';
import { getBinaryNodeChild } from '@whiskeysockets/baileys';
import type { BinaryNode } from '@whiskeysockets/baileys';
import { IqError } from '../network/network.js';
import type { Account } from '../network/model.js';
import type { MediaHost } from '../media/host.js';
import type { Groups } from './groups.js';

/** Largest group picture accepted (Baileys sends a 640×640 JPEG, far below this). */
const MAX_PICTURE_BYTES = 1024 * 1024;

/** Answers the `w:profile:picture` iqs whose `target` is a group (profile.ts hands them over). */
export interface GroupPictureTarget {
  answer(account: Account, iq: BinaryNode): BinaryNode[];
}

/**
 * Group pictures: `<iq xmlns="w:profile:picture" target="…@g.us">` as Baileys' updateProfilePicture and
 * removeProfilePicture send them for a group (a `<picture type="image">` JPEG, or no child to remove it),
 * and a get with that target (Baileys profilePictureUrl). Members only (403 forbidden otherwise); in a
 * `locked` group only admins change it (401 not-authorized), as the rest of the group's info. Each change
 * reaches the members' companions as `<notification type="picture" from="group"><set|delete jid id author/>`,
 * which Baileys (Socket/messages-recv.js, `picture`) turns into `contacts.update` with `imgUrl` and a
 * GROUP_CHANGE_ICON stub authored by `author`. A get without a picture is 404 item-not-found, as for accounts.
 */
export class GroupPictures implements GroupPictureTarget {
  constructor(private readonly groups: Groups, private readonly host: MediaHost) {}

  answer(account: Account, iq: BinaryNode): BinaryNode[] {
    const jid = iq.attrs.target ?? '';
    if (iq.attrs.type === 'get') {
      const { picture } = this.groups.asMember(jid, account);
      if (!picture) throw new IqError(404, 'item-not-found');
      return [{ tag: 'picture', attrs: { id: picture.id, type: 'image', url: picture.url, direct_path: picture.directPath } }];
    }
    const group = this.groups.asEditor(jid, account);
    const given = getBinaryNodeChild(iq, 'picture');
    // The author as the group names it: by LID in a LID-addressed group (the notification's own `participant` likewise).
    const author = this.groups.addressing(group).participant(account.number).jid!;
    if (!given) {
      if (!group.picture) return [];
      group.picture = undefined;
      this.groups.notify(group, account, { tag: 'delete', attrs: { jid: group.jid, author } }, [], 'picture');
      return [];
    }
    if (!(given.content instanceof Uint8Array) || given.content.length === 0 || given.content.length > MAX_PICTURE_BYTES) throw new IqError(400, 'bad-request');
    const data = Buffer.from(given.content);
    const directPath = this.host.put(data, 'profile');
    const id = String(randomInt(1_000_000_000, 2_000_000_000));
    group.picture = { id, data, directPath, url: this.host.url(directPath) };
    this.groups.notify(group, account, { tag: 'set', attrs: { jid: group.jid, id, author } }, [], 'picture');
    return [{ tag: 'picture', attrs: { id } }];
  }
}
