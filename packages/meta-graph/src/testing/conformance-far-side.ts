import type { DeliveryStatus, MessageRecord, SocialLink } from '@parley/core';
import type { ChannelFarSide, ConformanceHost, InboundRequest } from '@parley/testkit';
import { signatureHeader } from '../security/signature.js';
import { GRAPH_API_VERSION } from '../options.js';
import type { MockGraph } from './mock-graph.js';

/** What differs between the Meta channels' far sides, as data. */
export interface MetaFarSideOptions {
  /** The mock Graph API the driver under test calls (its `graphBaseUrl`). */
  graph: MockGraph;
  /** The instance's link: the account the webhooks name and the secret that signs them. */
  link: SocialLink;
  /** The peer's platform user id (IGSID, PSID). */
  user: string;
  /** `object` of the channel's webhook bodies (`instagram`, `page`). */
  webhookObject: string;
  /** How the peer's read receipt names messages: by `mid` (Instagram) or by a watermark time (Messenger). */
  readBy: 'mid' | 'watermark';
}

/** Meta's attachment type of each inbound media kind. */
const ATTACHMENT: Record<string, string> = { image: 'image', audio: 'audio', video: 'video', document: 'file' };

/**
 * The far side of a Meta channel for `describeChannelConformance` (`@parley/testkit`): the mock
 * Graph API answers sends with fresh message ids, and the peer's messages and receipts arrive as
 * signed webhook bodies posted to the driver's own `POST /webhook` route, which finds the instance
 * through the index of linked accounts.
 */
export function metaFarSide(options: MetaFarSideOptions): (host: ConformanceHost) => ChannelFarSide {
  const { graph, link, user } = options;
  return (host) => {
    let sent = 0;
    async function notify(event: Record<string, unknown>, timestampMs: number): Promise<void> {
      const body = {
        object: options.webhookObject,
        entry: [{ id: link.accountId, time: timestampMs, messaging: [{ sender: { id: user }, recipient: { id: link.accountId }, timestamp: timestampMs, ...event }] }],
      };
      const rawBody = Buffer.from(JSON.stringify(body));
      const answer = await host.route('post', '/webhook', {
        rawBody, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signatureHeader(rawBody, link.appSecret) },
      });
      if (answer.status !== 200) throw new Error(`the webhook route answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    }

    return {
      async connect() {
        // A linked account has no session: the Graph API only has to accept sends.
        graph.on('POST', `/${GRAPH_API_VERSION}/me/messages`, () => ({ status: 200, body: { recipient_id: user, message_id: `m_conformance_${++sent}_${Date.now()}` } }));
      },
      async deliverInbound(request: InboundRequest) {
        const now = Date.now();
        if (request.kind === 'reaction') {
          await notify({ reaction: { mid: request.id, action: 'react', reaction: 'love', emoji: '❤️' } }, now);
          return `${request.id}-reaction-${now}`;
        }
        const attachment = ATTACHMENT[request.kind];
        const message = attachment
          ? { mid: request.id, attachments: [{ type: attachment, payload: { url: `https://cdn.example/${request.id}.bin` } }] }
          : { mid: request.id, text: request.text };
        await notify({ message }, now);
        return request.id;
      },
      async acknowledge(record: MessageRecord, status: DeliveryStatus) {
        const now = Date.now();
        // Watermarks cover every message sent up to that time: one second past the record's covers it.
        const watermark = Math.max(now, (Number(record.messageTimestamp) + 1) * 1000);
        if (status === 'delivered') await notify({ delivery: { mids: [record.key.id], watermark } }, now);
        else if (status === 'read') await notify({ read: options.readBy === 'mid' ? { mid: record.key.id } : { watermark } }, now);
        else throw new Error(`a Meta peer does not report ${status}`);
      },
    };
  };
}

/** The member of a sent record's `message` each Meta send type produces (both channels build records alike). */
export const META_RECORD_MEMBERS = {
  text: 'extendedTextMessage', image: 'imageMessage', audio: 'audioMessage', video: 'videoMessage', document: 'documentMessage',
  title: 'extendedTextMessage', button_reply: 'buttonsMessage', button_action: 'interactiveMessage', reaction: 'reactionMessage',
} as const;
