import { normalizeAddress } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { dataResponse, messageResponse, s } from '../http/schema.js';
import { keyParams } from '../schemas/common.schemas.js';
import { INLINE_MEDIA_SENDS, messageRecordSchema, SEND_BODIES } from '../schemas/message.schemas.js';
import { MESSAGE_SUFFIXES } from '../send/content-mappings.js';
import type { MessageSuffix, SendBodies } from '../send/send-bodies.js';
import { createCallLink, sendingChannel } from '../send/sending-channel.js';

type Scope = InstanceRuntime;
const tag = 'Messages';

/** Docs of each sending suffix of spec 4.2: operation id and summary. */
const SEND_DOCS: Record<MessageSuffix, { operationId: string; summary: string; description?: string }> = {
  text: { operationId: 'sendText', summary: 'Send a text message' },
  image: { operationId: 'sendImage', summary: 'Send an image fetched from a URL', description: 'The URL is fetched once (or a data URI decoded); the bytes are stored and served back by GET media.' },
  audio: { operationId: 'sendAudio', summary: 'Send an audio fetched from a URL', description: 'Ogg/Opus audio is sent as a voice note (ptt), other formats as an audio file.' },
  video: { operationId: 'sendVideo', summary: 'Send a video fetched from a URL' },
  document: { operationId: 'sendDocument', summary: 'Send a document fetched from a URL', description: 'The given mimetype and fileName are what the recipient sees.' },
  sticker: { operationId: 'sendSticker', summary: 'Send a sticker (WebP, PNG, JPEG or GIF) fetched from a URL' },
  'video-note': { operationId: 'sendVideoNote', summary: 'Send a round video note fetched from a URL' },
  'base64/image': { operationId: 'sendBase64Image', summary: 'Send an image given as a base64 data URI' },
  'base64/audio': { operationId: 'sendBase64Audio', summary: 'Send an audio given as a base64 data URI' },
  'base64/document': { operationId: 'sendBase64Document', summary: 'Send a document given as a base64 data URI' },
  contact: { operationId: 'sendContact', summary: 'Share a contact card (vCard)' },
  contacts: { operationId: 'sendContacts', summary: 'Share several contact cards' },
  location: { operationId: 'sendLocation', summary: 'Send a location' },
  'live-location': { operationId: 'sendLiveLocation', summary: 'Send a live location' },
  link: { operationId: 'sendLink', summary: 'Send a text with a link preview', description: 'sourceUrl is not fetched; thumbnailUrl is fetched once as the preview image.' },
  reaction: { operationId: 'sendReaction', summary: 'React to a message of this instance', description: 'The reaction goes to the chat of message msgId (404 message_not_found when unknown). An empty text removes the reaction.' },
  title: { operationId: 'sendTitle', summary: 'Send a message with a title, text and footer' },
  button_reply: { operationId: 'sendButtonReply', summary: 'Send quick-reply buttons (1 to 3)' },
  button_action: { operationId: 'sendButtonAction', summary: 'Send URL, call or copy-code buttons (1 to 3)' },
  survey: { operationId: 'sendSurvey', summary: 'Send a single-answer poll' },
  poll: { operationId: 'sendPoll', summary: 'Send a poll where each person may pick selectableCount options' },
  pix: { operationId: 'sendPix', summary: 'Send a Pix payment request for an itemized order' },
  event: { operationId: 'sendEvent', summary: 'Send a calendar event' },
  pin: { operationId: 'pinMessage', summary: 'Pin a message of this instance in its chat', description: 'Sends a pin for everyone in the chat of message id (404 message_not_found when unknown).' },
  unpin: { operationId: 'unpinMessage', summary: 'Unpin a message of this instance in its chat' },
  'call-link': { operationId: 'sendCallLink', summary: 'Create a call link and send it' },
  product: { operationId: 'sendProduct', summary: 'Send a catalog product card' },
  'group-invite': { operationId: 'sendGroupInvite', summary: 'Send a group invite' },
  'request-phone': { operationId: 'sendRequestPhone', summary: 'Ask the recipient to share their phone number' },
};

/** Spec 4.2: every send operation, plus presence and call-link creation. */
export function messageRoutes(ctx: ServerContext): RouteDefinition[] {
  const sends = MESSAGE_SUFFIXES.map((suffix) => defineRoute<unknown, unknown, SendBodies[typeof suffix], Scope>({
    method: 'post', idempotent: true, keyedIds: true, path: `/{key}/message/${suffix}`, tag, auth: 'instance', params: keyParams, ...SEND_DOCS[suffix],
    body: SEND_BODIES[suffix], bodyLimit: INLINE_MEDIA_SENDS.has(suffix) ? 'media' : undefined,
    response: dataResponse(messageRecordSchema), errors: [403, 404, 409, 413, 422],
    handler: async ({ scope, body, runKey }) => ({ data: await ctx.sends.send(scope, suffix, body, undefined, runKey) }),
  }));
  return [
    ...sends,
    defineRoute<unknown, unknown, SendBodies['presence'], Scope>({
      method: 'post', path: '/{key}/message/presence', operationId: 'sendPresence', tag, auth: 'instance', params: keyParams,
      summary: 'Send a chat presence (typing, recording, online…)',
      description: 'No message results, so the answer is `{status: 200, message}`. With `provider` `instagram` or `messenger`, '
        + '`to` is the user id and the presence becomes a sender action: `composing`/`recording` → `typing_on`, '
        + '`paused`/`unavailable` → `typing_off`, `available` → `mark_seen`.',
      body: SEND_BODIES.presence, response: messageResponse, errors: [404, 409, 422],
      handler: async ({ scope, body }) => {
        // Main-channel recipients are what the main driver's addressing accepts; social channels take their own user ids.
        const to = scope.adapter(body.provider) === scope.main ? normalizeAddress(scope.addressing, body.to, 'body.to') : body.to;
        await sendingChannel(scope, body.provider).messaging.sendPresence({ to, status: body.status });
        return { message: `presence ${body.status} sent to ${to}` };
      },
    }),
    defineRoute<unknown, unknown, SendBodies['create-call-link'], Scope>({
      method: 'post', idempotent: true, path: '/{key}/message/create-call-link', operationId: 'createCallLink', tag, auth: 'instance', params: keyParams,
      summary: 'Create a call link without sending it',
      description: 'Answers the created link as `{status: 200, data: {link}}`.',
      body: SEND_BODIES['create-call-link'], response: dataResponse(s.openObject({ link: s.string() }, ['link'])), errors: [409, 422],
      handler: async ({ scope, body }) => ({ data: { link: await createCallLink(sendingChannel(scope), body.type) } }),
    }),
  ];
}
