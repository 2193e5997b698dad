import type { InstanceRecord, MediaBlob, MediaInput, Storage } from '@parley/core';

/**
 * The account picture of an instance, behind one stable URL: `instance.user.imageProfile` is always
 * `{publicUrl}/{key}/instance/profile/picture` while the account is connected (spec 2.1 types it as a
 * URL), and that address serves the picture set through the API or, when there is none, a neutral
 * placeholder. Channels' own picture URLs expire (WhatsApp's CDN) or differ per channel, so the
 * server keeps the bytes it was given under {@link PICTURE_MEDIA_ID} in the instance's media.
 */
export const PICTURE_MEDIA_ID = 'instance:profile-picture';

/** Served when the account has no picture: a grey silhouette, a static SVG without scripts. */
export const PLACEHOLDER_PICTURE: MediaBlob = {
  mimetype: 'image/svg+xml',
  data: Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="192" height="192" viewBox="0 0 192 192">'
    + '<rect width="192" height="192" fill="#dfe5e7"/><circle cx="96" cy="76" r="36" fill="#fff"/>'
    + '<path d="M28 192c0-44 30-68 68-68s68 24 68 68z" fill="#fff"/></svg>',
  ),
};

/** The stable picture URL of an instance. */
export function pictureUrl(publicUrl: string, key: string): string {
  return `${publicUrl}/${encodeURIComponent(key)}/instance/profile/picture`;
}

/** The account user as the API shows it: `imageProfile` is the stable picture URL (null while not connected). */
export function userView(user: InstanceRecord['user'], publicUrl: string, key: string): InstanceRecord['user'] {
  return user ? { ...user, imageProfile: pictureUrl(publicUrl, key) } : null;
}

/**
 * Keeps the bytes of a picture just set for the account `accountJid`, so the stable URL serves them
 * (the account is recorded with them: after pairing another account the old picture is not shown).
 */
export async function storePicture(storage: Storage, instanceId: string, accountJid: string, image: MediaInput): Promise<void> {
  await storage.media.put(instanceId, PICTURE_MEDIA_ID, { data: image.data, mimetype: image.mimetype, fileName: accountJid });
}

/** Forgets the picture (the media repository has no single delete: empty bytes mean "none"). */
export async function removePicture(storage: Storage, instanceId: string): Promise<void> {
  await storage.media.put(instanceId, PICTURE_MEDIA_ID, { data: Buffer.alloc(0), mimetype: 'application/octet-stream' });
}

/** The picture to serve for the connected account `accountJid` (none while not connected): the one set through the API, else the placeholder. */
export async function pictureOf(storage: Storage, instanceId: string, accountJid: string | undefined): Promise<MediaBlob> {
  if (!accountJid) return PLACEHOLDER_PICTURE;
  const stored = await storage.media.get(instanceId, PICTURE_MEDIA_ID);
  return stored && stored.data.length > 0 && stored.fileName === accountJid ? stored : PLACEHOLDER_PICTURE;
}
