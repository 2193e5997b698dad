import { mediaObjectOf, NotFoundError, readMedia, type MediaBlob, type MediaObject, type MessageRecord } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { BinaryReply, defineRoute, TextReply, type RouteDefinition } from '../http/route.js';
import { dataResponse, s } from '../http/schema.js';
import { keyAnd } from '../schemas/common.schemas.js';
import { messageRecordSchema } from '../schemas/message.schemas.js';

type Scope = InstanceRuntime;
const tag = 'Messages';
const messageIdParams = keyAnd({ messageId: s.string({ minLength: 1, maxLength: 512, description: 'Message id (Instagram ids run to about 170 characters).' }) });

/**
 * The media of a message: the server's stored copy (sent media, or received media saved with
 * `save_media`), else the channel's download. Null when the message has none.
 */
export async function mediaOf(ctx: ServerContext, runtime: InstanceRuntime, record: MessageRecord): Promise<MediaBlob | null> {
  return (await ctx.storage.media.get(runtime.id, record.key.id)) ?? downloaded(runtime, record);
}

/**
 * {@link mediaOf} opened for reading as a stream: the stored copy streamed from the media store where
 * it can ({@link readMedia}); a channel's download is whole (channels download received media whole).
 */
export async function openMediaOf(ctx: ServerContext, runtime: InstanceRuntime, record: MessageRecord): Promise<MediaObject | null> {
  const stored = await readMedia(ctx.storage.media, runtime.id, record.key.id);
  if (stored) return stored;
  const blob = await downloaded(runtime, record);
  return blob && mediaObjectOf(blob);
}

/** The channel's download of a message's media; null without one. */
async function downloaded(runtime: InstanceRuntime, record: MessageRecord): Promise<MediaBlob | null> {
  // A social channel unlinked since cannot download any more.
  const adapter = !record.provider || record.provider === runtime.main.channel ? runtime.main : runtime.social.get(record.provider);
  const messaging = adapter?.capabilities.messaging;
  return messaging?.downloadMedia ? messaging.downloadMedia(record) : null;
}

/** Spec 4.4: message details and media. */
export function messageMediaRoutes(ctx: ServerContext): RouteDefinition[] {
  return [
    defineRoute<{ messageId: string }, unknown, unknown, Scope>({
      method: 'get', path: '/{key}/message/{messageId}', operationId: 'getMessage', tag, auth: 'instance', params: messageIdParams,
      summary: 'A message record', response: dataResponse(messageRecordSchema), errors: [404],
      handler: async ({ scope, params }) => ({ data: await ctx.sends.existing(scope, params.messageId) }),
    }),
    defineRoute<{ messageId: string }, { format: 'json' | 'binary' }, unknown, Scope>({
      method: 'get', path: '/{key}/message/{messageId}/media', operationId: 'getMessageMedia', tag, auth: 'instance', params: messageIdParams,
      query: s.object({ format: s.enum(['json', 'binary'], { default: 'binary', description: 'binary (default, the download address webhooks link to) or json.' }) }),
      summary: 'The media of a message',
      description: '`format=json` answers `{status: 200, data: "data:<mime>;base64,<bytes>"}`; `format=binary` answers the bytes with their Content-Type and Content-Length, streamed from the media store where it streams (`@parley/media-s3`; a store failing mid-way closes the connection short of Content-Length). With a media store that hands out presigned addresses (`@parley/media-s3` `presignedGetSeconds`), `format=binary` of a stored media answers 302 to one instead: the client downloads from the object store, without credentials. 404 media_not_found when the message has no media, or (WhatsApp) when neither the media host of WhatsApp nor the phone of the account has it any more. 413 media_too_large when a received media the server has not stored is larger than `media.maxDownloadBytes` (declared by the message, or found while downloading; `details.limit`, and `details.size` when declared). 504 media_download_timeout when that download passes `media.downloadTimeoutMs` in all or `media.downloadIdleMs` without a byte (`details.limitMs`, `details.setting`); it is stopped, its connection closed. 502 when the channel fails the download.',
      response: { binary: ['*/*'], json: dataResponse(s.string({ description: 'data:<mime>;base64,<bytes>' })) }, errors: [302, 404, 413, 502, 504],
      handler: async ({ scope, params, query, res }) => {
        const record = await ctx.sends.existing(scope, params.messageId);
        const missing = () => new NotFoundError(`media of message ${params.messageId}`, 'media_not_found');
        if (query.format === 'json') {
          const blob = await mediaOf(ctx, scope, record);
          if (!blob) throw missing();
          return { data: `data:${blob.mimetype};base64,${blob.data.toString('base64')}` };
        }
        const presigned = await ctx.storage.media.presignGet?.(scope.id, record.key.id);
        if (presigned) {
          res.setHeader('Location', presigned);
          return new TextReply('Found: the media is at the Location header\n', 'text/plain; charset=utf-8', 302);
        }
        const media = await openMediaOf(ctx, scope, record);
        if (!media) throw missing();
        return BinaryReply.of(media);
      },
    }),
  ];
}
