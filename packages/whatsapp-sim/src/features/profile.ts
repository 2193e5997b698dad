import { createHash, randomInt } from 'node:crypto';
import { getBinaryNodeChild } from '@whiskeysockets/baileys';
import type { BinaryNode } from '@whiskeysockets/baileys';
import { IqError, stanzaId, unixNow } from '../network/network.js';
import type { Feature, Network } from '../network/network.js';
import type { Account } from '../network/model.js';
import { blocks } from '../network/model.js';
import { SimError } from '../network/errors.js';
import type { MediaHost } from '../media/host.js';
import { requireSession } from './prekeys.js';
import { applyChanges } from './app-state.js';
import type { GroupPictureTarget } from './group-pictures.js';

/** Longest about text (WhatsApp's apps allow 139 characters). */
export const MAX_STATUS = 139;
/** Largest profile picture accepted (Baileys sends a 640×640 JPEG, far below this). */
export const MAX_PICTURE_BYTES = 1024 * 1024;

/** What every other account sees of an account's profile. */
export interface ProfileView {
  number: string;
  pushName: string;
  status: string;
  statusSetAt: number | null;
  picture: { id: string; url: string; size: number; sha256: string } | null;
}

export interface ProfileChange {
  name?: string;
  status?: string;
  /** A JPEG, or null to remove the picture. */
  picture?: Buffer | null;
}

const jidOf = (account: Account): string => `${account.number}@s.whatsapp.net`;
const text = (node: BinaryNode | undefined): string =>
  node?.content instanceof Uint8Array ? Buffer.from(node.content).toString('utf8') : typeof node?.content === 'string' ? node.content : '';

/** Whether `viewer` may see what `account` shares under a privacy category (`profile`, `status`); blocks hide everything. */
export function visibleTo(account: Account, viewer: Account, category: 'profile' | 'status'): boolean {
  if (account === viewer) return true;
  return account.social.privacy[category] !== 'none' && !blocks(account, viewer);
}

/**
 * Profiles: the about text (`<iq xmlns="status" type="set"><status>text</status>`, Baileys updateProfileStatus;
 * read back with usync's `status` protocol) and the picture (`<iq xmlns="w:profile:picture" type="set">` with
 * `<picture type="image">` JPEG bytes, or no child to remove it; a get with `target` answers
 * `<picture id url direct_path type>`, 404 item-not-found when there is none and 401 not-authorized when the
 * owner's `profile` privacy hides it, the errors whatsmeow user.go GetProfilePictureInfo maps to
 * ErrProfilePictureNotSet and ErrProfilePictureUnauthorized). A new or removed picture is announced with
 * `<notification type="picture"><set|delete jid id/></notification>` (whatsmeow handlePictureNotification;
 * Baileys emits contacts.update with imgUrl changed/removed) to every other companion on the network. The push
 * name changes through app state (`setting_pushName`, app-state.ts). A `target` that is a group goes to
 * {@link Profiles.groupPictures}.
 */
export class Profiles {
  /** Where iqs whose `target` is a group go (group-pictures.ts); without it they are 501. */
  groupPictures: GroupPictureTarget | undefined;

  constructor(private readonly network: Network, private readonly host: MediaHost) {}

  feature(): Feature {
    return {
      iq: {
        status: (connection, iq) => {
          const { account } = requireSession(this.network, connection);
          const about = text(getBinaryNodeChild(iq, 'status'));
          if (iq.attrs.type !== 'set' || about.length > MAX_STATUS) throw new IqError(400, 'bad-request');
          this.setStatus(account, about);
          return [];
        },
        'w:profile:picture': (connection, iq) => {
          const { account } = requireSession(this.network, connection);
          const target = iq.attrs.target;
          if (target?.endsWith('@g.us')) {
            if (!this.groupPictures) throw new IqError(501, 'feature-not-implemented');
            return this.groupPictures.answer(account, iq);
          }
          if (iq.attrs.type === 'get') return [this.pictureFor(account, target ?? `${account.number}@s.whatsapp.net`)];
          // Setting another account's picture is not simulated.
          if (target && this.network.accountOf(target) !== account) throw new IqError(501, 'feature-not-implemented');
          const picture = getBinaryNodeChild(iq, 'picture');
          if (!picture) {
            this.setPicture(account, null);
            return [];
          }
          if (!(picture.content instanceof Uint8Array) || picture.content.length > MAX_PICTURE_BYTES) throw new IqError(400, 'bad-request');
          return [{ tag: 'picture', attrs: { id: this.setPicture(account, Buffer.from(picture.content))! } }];
        },
      },
    };
  }

  /** The phone of `number` changes its name, about text or picture. */
  async phoneChanges(number: string, change: ProfileChange): Promise<ProfileView> {
    const account = this.network.account(number);
    const { name, status, picture } = change;
    if (name !== undefined && (typeof name !== 'string' || name.length < 1 || name.length > 100)) throw new SimError(400, 'invalid_profile', 'name must be 1 to 100 characters', { field: 'name' });
    if (status !== undefined && (typeof status !== 'string' || status.length > MAX_STATUS)) throw new SimError(400, 'invalid_profile', `status must be at most ${MAX_STATUS} characters`, { field: 'status' });
    if (picture !== undefined && picture !== null && (!Buffer.isBuffer(picture) || picture.length === 0 || picture.length > MAX_PICTURE_BYTES || picture[0] !== 0xff || picture[1] !== 0xd8)) {
      throw new SimError(400, 'invalid_profile', `picture must be a JPEG of at most ${MAX_PICTURE_BYTES} bytes`, { field: 'picture' });
    }
    if (name === undefined && status === undefined && picture === undefined) throw new SimError(400, 'invalid_profile', 'give name, status or picture', { field: ['name', 'status', 'picture'] });
    if (name !== undefined) {
      account.pushName = name;
      // The phone syncs its own name to its companions, as WhatsApp's apps do (Baileys emits creds.update me.name).
      await applyChanges(this.network, account, [{ kind: 'push-name', name }]);
    }
    if (status !== undefined) this.setStatus(account, status);
    if (picture !== undefined) this.setPicture(account, picture);
    return this.view(account);
  }

  view(account: Account): ProfileView {
    const { status, statusAt, picture } = account.social;
    return {
      number: account.number, pushName: account.pushName, status, statusSetAt: statusAt || null,
      picture: picture ? { id: picture.id, url: picture.url, size: picture.data.length, sha256: createHash('sha256').update(picture.data).digest('hex') } : null,
    };
  }

  /** The account's picture (a JPEG). */
  picture(number: string): Buffer {
    const picture = this.network.account(number).social.picture;
    if (!picture) throw new SimError(404, 'picture_not_found', `${number} has no profile picture`, { number });
    return picture.data;
  }

  private pictureFor(viewer: Account, target: string): BinaryNode {
    const account = this.network.accountOf(target);
    if (!account) throw new IqError(404, 'item-not-found');
    if (!visibleTo(account, viewer, 'profile')) throw new IqError(401, 'not-authorized');
    const picture = account.social.picture;
    if (!picture) throw new IqError(404, 'item-not-found');
    return { tag: 'picture', attrs: { id: picture.id, type: 'image', url: picture.url, direct_path: picture.directPath } };
  }

  private setStatus(account: Account, about: string): void {
    account.social.status = about;
    account.social.statusAt = Number(unixNow());
  }

  /** Stores (or removes, with null) the account's picture on the media host and tells the other companions; answers the new id. */
  private setPicture(account: Account, data: Buffer | null): string | undefined {
    const previous = account.social.picture;
    if (!data && !previous) return undefined;
    let change: BinaryNode;
    if (data) {
      const directPath = this.host.put(data, 'profile');
      const id = String(randomInt(1_000_000_000, 2_000_000_000));
      account.social.picture = { id, data, directPath, url: this.host.url(directPath) };
      change = { tag: 'set', attrs: { jid: jidOf(account), id } };
    } else {
      account.social.picture = undefined;
      change = { tag: 'delete', attrs: { jid: jidOf(account) } };
    }
    for (const other of this.network.accounts.values()) {
      if (other !== account && !visibleTo(account, other, 'profile')) continue;
      for (const device of other.companions.values()) {
        if (!device.connection?.isOpen) continue;
        device.connection.send({ tag: 'notification', attrs: { from: jidOf(account), type: 'picture', id: stanzaId(), t: unixNow() }, content: [change] });
      }
    }
    return account.social.picture?.id;
  }
}

