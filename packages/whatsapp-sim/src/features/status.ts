import { randomBytes } from 'node:crypto';
import { getBinaryNodeChild, getBinaryNodeChildren } from '@whiskeysockets/baileys';
import type { BinaryNode, proto } from '@whiskeysockets/baileys';
import type { ClientConnection } from '../transport/connection.js';
import { deviceOf, unixNow } from '../network/network.js';
import type { Feature, Network } from '../network/network.js';
import { SimError } from '../network/errors.js';
import type { Copy, GroupMessages } from './group-messages.js';
import type { Messaging, SentMessage } from './messaging.js';

/** The chat stories are posted to. */
export const STATUS_BROADCAST = 'status@broadcast';
/** Most recipients one story may name through the control API. */
const MAX_AUDIENCE = 1024;
const MAX_TEXT = 700;

/**
 * Status stories: a message to `status@broadcast` is a sender-key message (one `skmsg`, and in
 * `<participants>` 1:1 copies of the distribution message for each device of the audience, the
 * `statusJidList` Baileys' relayMessage was given), relayed to exactly the devices the client addressed, as
 * `<message from="status@broadcast" participant="author">` with that device's copy first (whatsmeow's
 * send.go sends stories the same way, sendGroup with `status@broadcast`). Baileys keeps a story's sender key
 * under its LID (relayMessage: the LID identity unless the chat is a PN-addressed group), so a phone
 * decrypts the key under the author's LID device and the 1:1 copy over its session with the author's number.
 * Phones post stories the same way, to the companions and phones of the numbers they name and to their
 * own companions.
 */
export class StatusBroadcast {
  constructor(private readonly network: Network, private readonly groupMessages: GroupMessages, private readonly messaging: Messaging) {}

  feature(): Feature {
    return { stanzas: { message: (connection, node) => this.fromClient(connection, node) } };
  }

  /**
   * The phone of `from` posts a story that the accounts `audience` (numbers) see: a text, or an image or a
   * video the phone already uploaded to the media host (`imageMessage` / `videoMessage`, as Baileys'
   * generateWAMessageContent makes them; the stanza's type is then `media`, Baileys getMessageType).
   */
  async phonePosts(fromNumber: string, story: string | proto.IMessage, audience: string[]): Promise<SentMessage> {
    const from = this.network.account(fromNumber);
    if (typeof story === 'string' && (story.length === 0 || story.length > MAX_TEXT)) {
      throw new SimError(400, 'invalid_text', `text must be a non-empty string of at most ${MAX_TEXT} characters`, { field: 'text' });
    }
    const media = typeof story === 'string' ? undefined : story.imageMessage ?? story.videoMessage;
    if (typeof story !== 'string' && !media) throw new SimError(400, 'invalid_media', 'a story is a text, an image or a video', { field: 'kind' });
    const text = typeof story === 'string' ? story : media?.caption ?? '';
    const message: proto.IMessage = typeof story === 'string' ? { extendedTextMessage: { text: story } } : story;
    if (!Array.isArray(audience) || audience.length === 0 || audience.length > MAX_AUDIENCE) {
      throw new SimError(400, 'invalid_audience', `audience must name 1 to ${MAX_AUDIENCE} numbers`, { field: 'audience' });
    }
    const viewers = [...new Set(audience.map((n) => this.network.account(String(n))))].filter((a) => a !== from);
    const id = `3A${randomBytes(9).toString('hex').toUpperCase()}`;
    const author = `${from.number}@s.whatsapp.net`;
    const record = this.messaging.recordSent(from, { id, to: STATUS_BROADCAST, text, timestamp: Number(unixNow()), devices: [], receipts: [] });
    const { ciphertext, distribution } = await from.phone.encryptGroup(STATUS_BROADCAST, author, message);
    const skdm: proto.IMessage = { senderKeyDistributionMessage: { groupId: STATUS_BROADCAST, axolotlSenderKeyDistributionMessage: distribution } };
    for (const account of [...viewers, from]) {
      const devices = [...(account === from ? [] : [`${account.number}@s.whatsapp.net`]), ...[...account.companions.values()].map((d) => d.jid)];
      for (const jid of devices) {
        await this.messaging.ensureSession(from, jid);
        const copy = await from.phone.encrypt(jid, skdm);
        await this.groupMessages.toDevice(STATUS_BROADCAST, account, from, jid, author, id, record.timestamp, media ? 'media' : 'text', copy, undefined, ciphertext);
        record.devices.push(jid);
      }
    }
    return record;
  }

  private async fromClient(connection: ClientConnection, node: BinaryNode): Promise<void> {
    const session = this.network.session(connection);
    const { id, to } = node.attrs;
    if (!session || !id || to !== STATUS_BROADCAST) return;
    const t = Number(unixNow());
    connection.send({ tag: 'ack', attrs: { class: 'message', id, from: to, t: String(t) } });
    const { account, device } = session;
    const skmsg = getBinaryNodeChildren(node, 'enc').find((e) => e.attrs.type === 'skmsg');
    if (!(skmsg?.content instanceof Uint8Array)) return;
    const identity = getBinaryNodeChild(node, 'device-identity');
    for (const target of getBinaryNodeChildren(getBinaryNodeChild(node, 'participants'), 'to')) {
      const jid = target.attrs.jid ?? '';
      const viewer = this.network.accountOf(jid);
      const enc = getBinaryNodeChild(target, 'enc');
      if (!viewer || !(enc?.content instanceof Uint8Array) || (viewer === account && deviceOf(jid) === device.id)) continue;
      const copy: Copy = { type: enc.attrs.type === 'pkmsg' ? 'pkmsg' : 'msg', ciphertext: Buffer.from(enc.content) };
      // Devices are addressed by number here; a LID-addressed one is the same device of the same account.
      const pnJid = deviceOf(jid) === 0 ? `${viewer.number}@s.whatsapp.net` : `${viewer.number}:${deviceOf(jid)}@s.whatsapp.net`;
      await this.groupMessages.toDevice(STATUS_BROADCAST, viewer, account, pnJid, device.lidJid, id, t, node.attrs.type ?? 'text', copy, identity,
        Buffer.from(skmsg.content), device.jid);
    }
  }
}

