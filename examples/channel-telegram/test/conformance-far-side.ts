import type { DeliveryStatus, MessageRecord } from '@parley/core';
import type { ChannelFarSide, ConformanceHost, InboundRequest } from '@parley/testkit';
import type { MockBotApi, MockUser } from '../src/testing/index.js';
import type { TgMessage, TgUpdate } from '../src/telegram-types.js';

/** What a received message of each kind carries in a Telegram Update (core.telegram.org/bots/api#message). */
function contentOf(request: InboundRequest): Partial<TgMessage> {
  const file = (mime: string, name?: string) => ({ file_id: `F${request.id}`, file_unique_id: `U${request.id}`, mime_type: mime, ...(name ? { file_name: name } : {}) });
  switch (request.kind) {
    case 'text':
      return { text: request.text };
    case 'image':
      return { photo: [{ file_id: `S${request.id}`, file_unique_id: `s${request.id}`, width: 90, height: 90 }, { file_id: `F${request.id}`, file_unique_id: `U${request.id}`, width: 800, height: 800 }], caption: request.text };
    case 'document':
      return { document: file('application/pdf', 'conformance.pdf'), caption: request.text };
    case 'video':
      return { video: file('video/mp4'), caption: request.text };
    case 'audio':
      return { voice: file('audio/ogg') };
    case 'location':
      return { location: { latitude: 38.7223, longitude: -9.1393 } };
    default:
      throw new Error(`a Telegram peer does not send ${request.kind} here`);
  }
}

/**
 * The far side of the Telegram channel for `describeChannelConformance`: the mock Bot API answers
 * sends, and the peer's messages arrive as Updates posted to the driver's own
 * `POST /webhook/:botId` route with the link's secret token, as Telegram delivers them.
 */
export function telegramFarSide(options: { mock: MockBotApi; botId: number; secret: string; peer: MockUser }): (host: ConformanceHost) => ChannelFarSide {
  const { mock, botId, secret, peer } = options;
  return (host) => {
    let updateId = 1_000;
    let messageId = 10_000;
    return {
      async connect() {
        // A linked bot has no session: the Bot API only has to know the chat.
        mock.addChat(peer.id);
      },
      async deliverInbound(request: InboundRequest) {
        const { attachment } = request;
        if (attachment) {
          const { declaredBytes, stalls } = attachment;
          mock.addFile(`F${request.id}`, Buffer.alloc(attachment.bytes, 1), { ...(declaredBytes !== undefined ? { declaredSize: declaredBytes } : {}), ...(stalls ? { stalls } : {}) });
        }
        const message = { message_id: ++messageId, from: { is_bot: false, ...peer }, chat: { id: peer.id, type: 'private' as const }, date: Math.floor(Date.now() / 1000), ...contentOf(request) };
        const update: TgUpdate = { update_id: ++updateId, message };
        const answer = await host.route('post', '/webhook/:botId', {
          params: { botId: String(botId) }, headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secret }, body: update,
        });
        if (answer.status !== 200) throw new Error(`the webhook route answered ${answer.status}: ${JSON.stringify(answer.body)}`);
        return `${peer.id}_${message.message_id}`;
      },
      async acknowledge(_record: MessageRecord, status: DeliveryStatus) {
        // The channel reports `sent` itself when the Bot API answers; Telegram gives bots nothing more.
        if (status !== 'sent') throw new Error(`a Telegram peer does not report ${status}`);
      },
    };
  };
}
