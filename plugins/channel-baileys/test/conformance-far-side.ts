import type { ChannelFarSide, ConformanceHost, InboundRequest } from '@parley/testkit';
import { proto } from '@whiskeysockets/baileys';
import type { BaileysAdapter } from '../src/baileys.adapter.js';
import { ReceivePath, type FakeSocket, type FakeSockets } from '../src/testing/index.js';
import { ME, OWN_JID, PEER_JID } from './harness.js';

/** Media members a received WhatsApp media message carries (the bytes stay on the CDN). */
function mediaMembers(mimetype: string, caption?: string): Record<string, unknown> {
  return {
    url: 'https://mmg.whatsapp.net/v/t62.7118-24/conformance.enc', directPath: '/v/t62.7118-24/conformance.enc', mimetype,
    fileSha256: Buffer.alloc(32, 7), fileEncSha256: Buffer.alloc(32, 8), mediaKey: Buffer.alloc(32, 9), fileLength: 4,
    ...(caption ? { caption } : {}),
  };
}

/** The protocol message a WhatsApp peer sends for each inbound kind. */
function peerMessage(request: InboundRequest): proto.IMessage {
  switch (request.kind) {
    case 'text': return { conversation: request.text };
    case 'image': return { imageMessage: mediaMembers('image/jpeg', request.text) };
    case 'audio': return { audioMessage: { ...mediaMembers('audio/ogg; codecs=opus'), ptt: true } };
    case 'video': return { videoMessage: mediaMembers('video/mp4', request.text) };
    case 'document': return { documentMessage: { ...mediaMembers('application/pdf'), fileName: 'conformance.pdf' } };
    case 'sticker': return { stickerMessage: mediaMembers('image/webp') };
    case 'location': return { locationMessage: { degreesLatitude: -23.5505, degreesLongitude: -46.6333 } };
    case 'contacts': return { contactMessage: { displayName: 'Ana', vcard: 'BEGIN:VCARD\nVERSION:3.0\nFN:Ana\nTEL;type=CELL;waid=5511988887777:+55 11 98888-7777\nEND:VCARD' } };
    case 'reaction': return { reactionMessage: { key: { remoteJid: OWN_JID, fromMe: true, id: '3EB0C0FFEE0000000000CAFE' }, text: '❤️', senderTimestampMs: Date.now() } };
  }
}

/**
 * The far side of a Baileys instance: the fake socket the driver builds (the network accepting the
 * session as the account {@link ME}), a peer ({@link PEER_JID}) whose messages travel Baileys' own
 * receive path, and the peer's receipts as Baileys' `handleReceipt` (Socket/messages-recv.js)
 * emits them for a one-to-one chat: `messages.update` with the receipt's status.
 */
export function baileysFarSide(sockets: FakeSockets): (host: ConformanceHost) => ChannelFarSide {
  return (host) => {
    let receivePath: ReceivePath | undefined;
    const adapter = (): BaileysAdapter => host.adapter() as BaileysAdapter;
    /** The network accepts the socket the adapter built: it opens as the account, and the peer opens sessions to it. */
    async function accept(socket: FakeSocket): Promise<void> {
      socket.open(ME);
      await adapter().idle();
      receivePath = await ReceivePath.create(socket, [PEER_JID]);
    }
    return {
      async connect() {
        const next = sockets.next();
        const connecting = adapter().capabilities.connection!.connect();
        await accept(await next);
        await connecting;
      },
      async reopen() {
        // connection.restart ended the open socket and builds the next one with the same session.
        await accept(await sockets.next(sockets.all.length + (sockets.last().ended ? 1 : 0)));
      },
      async deliverInbound(request) {
        if (!receivePath) throw new Error('connect first');
        await receivePath.receive(PEER_JID, peerMessage(request), { id: request.id, timestamp: Math.floor(Date.now() / 1000), pushName: 'Peer' });
        await adapter().idle();
        return request.id;
      },
      async acknowledge(record, status) {
        // getStatusFromReceiptType: no type → DELIVERY_ACK, `read` → READ; the receipt names the peer's chat and the sender's own message.
        const value = status === 'delivered' ? proto.WebMessageInfo.Status.DELIVERY_ACK : status === 'read' ? proto.WebMessageInfo.Status.READ : undefined;
        if (value === undefined) throw new Error(`a WhatsApp peer does not send a ${status} receipt`);
        sockets.last().emit('messages.update', [{
          key: { remoteJid: record.key.remoteJid, id: record.key.id, fromMe: true, participant: undefined },
          update: { status: value, messageTimestamp: Math.floor(Date.now() / 1000) },
        }]);
        await adapter().idle();
      },
    };
  };
}
