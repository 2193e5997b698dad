import { randomBytes } from 'node:crypto';
import { aesDecryptGCM, aesEncryptGCM, getBinaryNodeChild, getBinaryNodeChildBuffer, hkdf, proto } from '@whiskeysockets/baileys';
import type { BinaryNode } from '@whiskeysockets/baileys';
import type { ClientConnection } from '../transport/connection.js';
import type { Feature, Network } from '../network/network.js';
import { unixNow } from '../network/network.js';
import type { Account } from '../network/model.js';
import { SimError } from '../network/errors.js';
import type { Media } from './media.js';

/** How a phone answers a media retry request: the `MediaRetryNotification` result, lower-case. */
export type MediaRetryResult = 'success' | 'not_found' | 'general_error' | 'decryption_error';

/** What a phone answers when it no longer has a message's file. */
export type LostMediaAnswer = 'not_found' | 'general_error';

/** One media retry request a phone answered. */
export interface MediaRetry {
  /** The message whose media was asked for. */
  id: string;
  /** The companion that asked. */
  from: string;
  /** The chat as the request names it (`<rmr jid>`). */
  chat: string;
  result: MediaRetryResult;
  /** Where the phone uploaded the file again (on `success`). */
  directPath?: string;
  at: number;
}

const RESULTS: Record<MediaRetryResult, proto.MediaRetryNotification.ResultType> = {
  success: proto.MediaRetryNotification.ResultType.SUCCESS,
  not_found: proto.MediaRetryNotification.ResultType.NOT_FOUND,
  general_error: proto.MediaRetryNotification.ResultType.GENERAL_ERROR,
  decryption_error: proto.MediaRetryNotification.ResultType.DECRYPTION_ERROR,
};

/** Most answered requests kept per phone ({@link MediaRetries.of}); the oldest go first. */
const MAX_KEPT = 200;

/** The key of a media retry's encrypted parts: HKDF-SHA256 of the message's media key (Baileys getMediaRetryKey, whatsmeow mediaretry.go getMediaRetryKey). */
function retryKey(mediaKey: Buffer): Buffer {
  return Buffer.from(hkdf(mediaKey, 32, { info: 'WhatsApp Media Retry Notification' }));
}

/**
 * Media retry requests: a companion whose download of a message's media got 404 or 410 sends
 * `<receipt type="server-error" to="<own number>">` with `<encrypt><enc_p/><enc_iv/></encrypt>` (a
 * `ServerErrorReceipt` naming the message, AES-GCM under a key from the media key, the message id as
 * associated data) and `<rmr jid from_me participant?>` — to its own account, whose phone has the media
 * (Baileys Utils/messages-media.js encryptMediaRetryRequest; whatsmeow mediaretry.go SendMediaRetryReceipt:
 * "sends a request to the phone to re-upload the media in a message"). The phone uploads the file again and
 * answers `<notification type="mediaretry" id>` with the same `<rmr>` and an encrypted
 * `MediaRetryNotification` {stanzaId, directPath, result} (Baileys decodeMediaRetryNode / decryptMediaRetryData,
 * whatsmeow parseMediaRetryNotification). A phone that lost the file answers NOT_FOUND (or GENERAL_ERROR when
 * told so), one whose request does not decrypt DECRYPTION_ERROR, and one that never had the message
 * `<error code="2"/>` (NOT_FOUND's number; Baileys reads an `<error code>` as that result's status).
 */
export class MediaRetries {
  private readonly answered = new Map<Account, MediaRetry[]>();
  private readonly lost = new Map<Account, Map<string, LostMediaAnswer>>();

  constructor(private readonly network: Network, private readonly media: Media) {}

  feature(): Feature {
    return {
      stanzas: {
        // Messaging acks every receipt; this answers the media retry ones.
        receipt: (connection, node) => (node.attrs.type === 'server-error' ? this.request(connection, node) : undefined),
      },
    };
  }

  /** The phone of `account` deletes the file of a message it received: a media retry for it gets `answer` (400 naming `field`). */
  lose(account: Account, messageId: string, answer: unknown = 'not_found', field = 'answer'): void {
    if (answer !== 'not_found' && answer !== 'general_error') {
      throw new SimError(400, 'invalid_request', 'answer must be not_found or general_error', { field, answer });
    }
    if (!this.media.forget(account, messageId)) {
      throw new SimError(404, 'media_not_found', `the phone of ${account.number} has no media of ${messageId}`, { messageId });
    }
    const mine = this.lost.get(account) ?? new Map<string, LostMediaAnswer>();
    this.lost.set(account, mine.set(messageId, answer));
  }

  /** The media retry requests the phone of `account` answered, oldest first. */
  of(account: Account): MediaRetry[] {
    return (this.answered.get(account) ?? []).map((retry) => ({ ...retry }));
  }

  private async request(connection: ClientConnection, node: BinaryNode): Promise<void> {
    const session = this.network.session(connection);
    const rmr = getBinaryNodeChild(node, 'rmr');
    const id = node.attrs.id;
    // A media retry goes to the companion's own account (`to` its number): its phone answers.
    if (!session || !rmr || !id || this.network.accountOf(node.attrs.to ?? '') !== session.account) return;
    const { account, device } = session;
    const answer = (content: BinaryNode[], retry?: Omit<MediaRetry, 'id' | 'from' | 'chat' | 'at'>) => {
      if (retry) this.keep(account, { id, from: device.jid, chat: rmr.attrs.jid ?? '', ...retry, at: Date.now() });
      this.network.deliver(device, {
        tag: 'notification', attrs: { from: `${account.number}@s.whatsapp.net`, type: 'mediaretry', id, t: unixNow() },
        content: [{ tag: 'rmr', attrs: { ...rmr.attrs } }, ...content],
      });
    };
    const mediaKey = this.media.keyOf(account, id);
    if (!mediaKey) return answer([{ tag: 'error', attrs: { code: String(RESULTS.not_found) } }]);
    const key = retryKey(mediaKey);
    const result = this.decrypts(node, key, id) ? this.lost.get(account)?.get(id) ?? 'success' : 'decryption_error';
    const directPath = result === 'success' ? await this.media.reupload(account, id) : undefined;
    const final: MediaRetryResult = result === 'success' && !directPath ? 'not_found' : result;
    const plain = proto.MediaRetryNotification.encode({ stanzaId: id, result: RESULTS[final], ...(directPath ? { directPath } : {}) }).finish();
    const iv = randomBytes(12);
    answer([{
      tag: 'encrypt', attrs: {},
      content: [{ tag: 'enc_p', attrs: {}, content: aesEncryptGCM(plain, key, iv, Buffer.from(id)) }, { tag: 'enc_iv', attrs: {}, content: iv }],
    }], { result: final, ...(directPath ? { directPath } : {}) });
  }

  /** Whether the request's `ServerErrorReceipt` decrypts under the message's key and names the message. */
  private decrypts(node: BinaryNode, key: Buffer, id: string): boolean {
    const encrypt = getBinaryNodeChild(node, 'encrypt');
    const ciphertext = getBinaryNodeChildBuffer(encrypt, 'enc_p');
    const iv = getBinaryNodeChildBuffer(encrypt, 'enc_iv');
    if (!ciphertext || !iv) return false;
    try {
      return proto.ServerErrorReceipt.decode(aesDecryptGCM(ciphertext, key, iv, Buffer.from(id))).stanzaId === id;
    } catch {
      return false;
    }
  }

  private keep(account: Account, retry: MediaRetry): void {
    const mine = this.answered.get(account) ?? [];
    mine.push(retry);
    if (mine.length > MAX_KEPT) mine.shift();
    this.answered.set(account, mine);
  }
}
