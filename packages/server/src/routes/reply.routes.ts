import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { dataResponse, s } from '../http/schema.js';
import { keyAnd } from '../schemas/common.schemas.js';
import { INLINE_MEDIA_SENDS, messageRecordSchema, REPLY_BODIES } from '../schemas/message.schemas.js';
import { REPLY_TYPES } from '../schemas/rich-send.schemas.js';
import type { SendBodies } from '../send/send-bodies.js';

type Scope = InstanceRuntime;
const tag = 'Messages';

type ReplyType = (typeof REPLY_TYPES)[number];

const pascal = (type: string) => type.split(/[_-]/).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');

/**
 * Spec 4.3: POST /{key}/message/{messageId}/{type}, one operation per type so each documents its
 * own body (the body of the send of that type). The quoted message must exist in this instance.
 */
export function replyRoutes(ctx: ServerContext): RouteDefinition[] {
  return REPLY_TYPES.map((type: ReplyType) => defineRoute<{ messageId: string }, unknown, SendBodies[ReplyType], Scope>({
    method: 'post', idempotent: true, keyedIds: true, path: `/{key}/message/{messageId}/${type}`, operationId: `reply${pascal(type)}`, tag, auth: 'instance',
    params: keyAnd({ messageId: s.string({ minLength: 1, maxLength: 512, description: 'Id of the message replied to (quoted).' }) }),
    summary: `Reply to a message with a ${type.replace('_', ' ')} message`,
    description: `Same body as POST /{key}/message/${type}. The sent record carries the quote as \`contextInfo\` {stanzaId, participant, quotedMessage} in its typed member; 404 message_not_found when {messageId} is not a message of this instance.`,
    body: REPLY_BODIES[type], bodyLimit: INLINE_MEDIA_SENDS.has(type) ? 'media' : undefined,
    response: dataResponse(messageRecordSchema), errors: [403, 404, 409, 413, 422],
    handler: async ({ scope, params, body, runKey }) => ({ data: await ctx.sends.send(scope, type, body, params.messageId, runKey) }),
  }));
}
