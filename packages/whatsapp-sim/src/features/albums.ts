import { proto } from '@whiskeysockets/baileys';
import { SimError } from '../network/errors.js';
import type { Media, MediaInput } from './media.js';
import type { Messaging, SentMessage } from './messaging.js';

/** Images a phone sends in one album through the control API. */
const ALBUM_IMAGES = { min: 2, max: 10 };

/** An album a phone sent: the parent (`albumMessage`) and its images, in order. */
export interface SentAlbum {
  parent: SentMessage;
  images: SentMessage[];
}

/**
 * The phone of `from` sends images as one album, as WhatsApp clients do (Baileys' `album` and
 * `albumParentKey` build the same): first the parent, an `albumMessage` with the expected image count and
 * no media of its own, then each image, tied to it by `messageContextInfo.messageAssociation` (MEDIA_ALBUM,
 * the parent's key).
 */
export async function phoneSendsAlbum(messaging: Messaging, media: Media, from: string, to: string, images: MediaInput[]): Promise<SentAlbum> {
  if (!Array.isArray(images) || images.length < ALBUM_IMAGES.min || images.length > ALBUM_IMAGES.max || images.some((i) => i?.kind !== 'image')) {
    throw new SimError(400, 'invalid_album', `an album is ${ALBUM_IMAGES.min} to ${ALBUM_IMAGES.max} images`, { field: 'images' });
  }
  const uploads = await Promise.all(images.map((image) => media.upload(image)));
  const parent = await messaging.phoneSends(from, to, { albumMessage: { expectedImageCount: images.length } }, '');
  const parentMessageKey = { remoteJid: `${to}@s.whatsapp.net`, fromMe: true, id: parent.id };
  const sent: SentMessage[] = [];
  for (const [index, upload] of uploads.entries()) {
    const message: proto.IMessage = {
      ...upload,
      messageContextInfo: { messageAssociation: { associationType: proto.MessageAssociation.AssociationType.MEDIA_ALBUM, parentMessageKey, messageIndex: index } },
    };
    sent.push(await messaging.phoneSends(from, to, message, images[index]!.caption ?? ''));
  }
  return { parent, images: sent };
}
