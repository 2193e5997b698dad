import type { MediaType, proto } from '@whiskeysockets/baileys';
import type { Feature, Network } from '../network/network.js';
import type { Account } from '../network/model.js';
import { contentOf, type ReceivedMessage } from '../network/phone.js';
import { SimError } from '../network/errors.js';
import { decryptMedia, encryptMedia } from '../media/crypto.js';
import { MEDIA_CONN_TTL_S } from '../media/host.js';
import type { MediaHost } from '../media/host.js';
import { mediaServing, type MediaServing } from '../media/serving.js';
import { MAX_THUMBNAIL_BYTES, phoneThumbnail } from '../media/thumbnail.js';
import { requireSession } from './prekeys.js';

/** Media a phone sends through the control API. */
export interface MediaInput {
  kind: 'image' | 'document' | 'audio' | 'video' | 'sticker';
  data: Buffer;
  mimetype: string;
  fileName?: string;
  /** Of an image, video or document. */
  caption?: string;
  /** A voice note (audio only). */
  voice?: boolean;
  /** An animated sticker (sticker only). */
  animated?: boolean;
  /** The size the message announces (`fileLength`) when it is not the file's: a sender that lies. */
  fileLength?: number;
  /** How the media host serves the file (whole by default). */
  serve?: MediaServing;
  /**
   * The inline preview (`jpegThumbnail`, a JPEG) of an image or video; by default the phone makes one as
   * WhatsApp's apps do (media/thumbnail.ts).
   */
  thumbnail?: Buffer;
}

/** A media file a phone received, decrypted (`ok`), or why it could not be (`error`). */
export interface ReceivedMedia {
  kind: string;
  mimetype: string | undefined;
  fileName: string | undefined;
  size: number;
  error?: string;
}

/** Largest file a phone sends through the control API. */
export const MAX_PHONE_MEDIA_BYTES = 16 * 1024 * 1024;

const FIELDS = { image: 'imageMessage', document: 'documentMessage', audio: 'audioMessage', video: 'videoMessage', sticker: 'stickerMessage' } as const;
/** A received file as the phone keeps it: decrypted, with the key it came under (a media retry re-encrypts it so). */
type Stored = { media: ReceivedMedia; data: Buffer | undefined; mediaKey: Buffer | undefined };

/** Whether a message kind is a media kind: a {@link MediaInput}, uploaded to the media host. */
export function isMediaKind(kind: string): kind is MediaInput['kind'] {
  return Object.hasOwn(FIELDS, kind);
}

/**
 * Media: the `media_conn` iq (`xmlns="w:m"`: the media host, its auth token and TTL, as Baileys'
 * refreshMediaConn reads it), phones uploading what they send (encrypted as WhatsApp does) and
 * downloading and decrypting what they receive.
 */
export class Media {
  private readonly received = new Map<Account, Map<string, Stored>>();

  constructor(private readonly network: Network, private readonly host: MediaHost) {}

  feature(): Feature {
    return {
      iq: {
        'w:m/media_conn': (connection) => {
          requireSession(this.network, connection);
          return [{
            tag: 'media_conn', attrs: { auth: this.host.auth, ttl: String(MEDIA_CONN_TTL_S), auth_ttl: String(MEDIA_CONN_TTL_S), max_buckets: '12' },
            content: [{ tag: 'host', attrs: { hostname: this.host.hostname, maxContentLengthBytes: String(64 * 1024 * 1024) } }],
          }];
        },
      },
    };
  }

  /** Encrypts and uploads a phone's file; the message that carries it. */
  async upload(input: MediaInput): Promise<proto.IMessage> {
    if (!isMediaKind(input.kind)) throw new SimError(400, 'invalid_media', 'kind must be image, document, audio, video or sticker', { field: 'kind', kind: input.kind });
    if (typeof input.mimetype !== 'string' || !/^[\w.+-]+\/[\w.+-]+(;.*)?$/.test(input.mimetype)) {
      throw new SimError(400, 'invalid_media', 'mimetype must be a MIME type such as video/mp4', { field: 'mimetype', mimetype: input.mimetype });
    }
    if (input.data.length === 0 || input.data.length > MAX_PHONE_MEDIA_BYTES) {
      throw new SimError(400, 'invalid_media', `data must be 1 byte to ${MAX_PHONE_MEDIA_BYTES} bytes`, { field: 'data', size: input.data.length });
    }
    if (input.fileLength !== undefined && !(Number.isSafeInteger(input.fileLength) && input.fileLength >= 0)) {
      throw new SimError(400, 'invalid_media', 'fileLength must be an integer of at least 0', { field: 'fileLength' });
    }
    mediaServing(input.serve);
    const preview = input.kind === 'image' || input.kind === 'video' ? await this.preview(input.kind, input) : undefined;
    const encrypted = await encryptMedia(input.data, input.kind);
    const directPath = this.host.put(encrypted.blob, input.kind, input.serve);
    const fields = {
      url: this.host.url(directPath), directPath, mediaKey: encrypted.mediaKey, fileSha256: encrypted.fileSha256,
      fileEncSha256: encrypted.fileEncSha256, fileLength: input.fileLength ?? encrypted.fileLength, mimetype: input.mimetype,
      mediaKeyTimestamp: Math.floor(Date.now() / 1000),
    };
    if (input.kind === 'image') return { imageMessage: { ...fields, caption: input.caption, jpegThumbnail: preview } };
    if (input.kind === 'video') return { videoMessage: { ...fields, caption: input.caption, jpegThumbnail: preview } };
    if (input.kind === 'sticker') return { stickerMessage: { ...fields, isAnimated: input.animated === true } };
    if (input.kind === 'audio') return { audioMessage: { ...fields, ptt: input.voice === true } };
    return { documentMessage: { ...fields, fileName: input.fileName ?? 'file', title: input.fileName, caption: input.caption } };
  }

  /** The preview of an image or video: the one given (checked), else the phone's own. */
  private async preview(kind: 'image' | 'video', input: MediaInput): Promise<Buffer> {
    if (input.thumbnail === undefined) return phoneThumbnail(kind, input.data);
    if (!Buffer.isBuffer(input.thumbnail) || input.thumbnail.length === 0 || input.thumbnail.length > MAX_THUMBNAIL_BYTES) {
      throw new SimError(400, 'invalid_media', `thumbnail must be 1 byte to ${MAX_THUMBNAIL_BYTES} bytes of JPEG`, { field: 'thumbnail' });
    }
    return input.thumbnail;
  }

  /** A phone got a message: when it carries media, the phone downloads and decrypts it. */
  async open(account: Account, message: ReceivedMessage): Promise<void> {
    for (const [kind, field] of Object.entries(FIELDS)) {
      const content = contentOf(message.message)[field] as Record<string, string | number | undefined> | undefined;
      if (!content) continue;
      const media: ReceivedMedia = { kind, mimetype: content.mimetype as string, fileName: content.fileName as string, size: 0 };
      let data: Buffer | undefined;
      const mediaKey = content.mediaKey ? Buffer.from(String(content.mediaKey), 'base64') : undefined;
      try {
        const blob = this.host.get(String(content.directPath ?? content.url ?? ''));
        if (!blob || !mediaKey) throw new Error('the file is not on the media host');
        const sha = content.fileSha256 ? Buffer.from(String(content.fileSha256), 'base64') : undefined;
        data = await decryptMedia(blob, mediaKey, kind as MediaType, sha);
        media.size = data.length;
      } catch (error) {
        media.error = (error as Error).message;
      }
      message.media = media;
      this.store(account, message.id, { media, data, mediaKey });
    }
  }

  /**
   * The phone keeps the file of a message it sent or has in its history, as phones keep their media: a
   * media retry for it is answered with a new upload ({@link reupload}).
   */
  keep(account: Account, messageId: string, message: proto.IMessage, data: Buffer): void {
    for (const [kind, field] of Object.entries(FIELDS)) {
      const content = message[field];
      if (!content?.mediaKey) continue;
      const media: ReceivedMedia = { kind, mimetype: content.mimetype ?? undefined, fileName: (content as { fileName?: string }).fileName, size: data.length };
      this.store(account, messageId, { media, data, mediaKey: Buffer.from(content.mediaKey) });
    }
  }

  private store(account: Account, messageId: string, stored: Stored): void {
    const mine = this.received.get(account) ?? new Map<string, Stored>();
    mine.set(messageId, stored);
    this.received.set(account, mine);
  }

  /**
   * The phone uploads the media of a message it received (or kept, {@link keep}) again, as for a media retry
   * request: the file it kept, encrypted under the message's key (the same blob, so the message's hashes still hold), to a new
   * direct path; undefined when it no longer has the file ({@link forget}) or never had it.
   */
  async reupload(account: Account, messageId: string): Promise<string | undefined> {
    const stored = this.received.get(account)?.get(messageId);
    if (!stored?.data || !stored.mediaKey) return undefined;
    const { blob } = await encryptMedia(stored.data, stored.media.kind as MediaType, stored.mediaKey);
    return this.host.put(blob, stored.media.kind);
  }

  /** The media key of a message whose media the phone received or kept, if it did. */
  keyOf(account: Account, messageId: string): Buffer | undefined {
    return this.received.get(account)?.get(messageId)?.mediaKey;
  }

  /** The phone deletes the file of a message it received (the message stays); whether it had one. */
  forget(account: Account, messageId: string): boolean {
    const stored = this.received.get(account)?.get(messageId);
    if (!stored?.data) return false;
    stored.data = undefined;
    stored.media.error = 'the phone deleted the file';
    return true;
  }

  /** The decrypted file of a message a phone received. */
  file(account: Account, messageId: string): { media: ReceivedMedia; data: Buffer } {
    const stored = this.received.get(account)?.get(messageId);
    if (!stored) throw new SimError(404, 'media_not_found', `the phone of ${account.number} received no media in ${messageId}`, { messageId });
    if (!stored.data) throw new SimError(422, 'media_undecryptable', stored.media.error ?? 'the media did not decrypt', { messageId });
    return { media: stored.media, data: stored.data };
  }
}
