import { addressNumber, normalizeAddress, ValidationError } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { BinaryReply, defineRoute, JsonReply, type RouteDefinition } from '../http/route.js';
import { s } from '../http/schema.js';
import { connectedCapability } from '../routes/instance-guards.js';
import { markChatRead } from '../routes/stored-chat.js';
import { CloudMediaStore } from './cloud-media.js';
import { CLOUD_ROUTE, phoneParams, samePhone } from './cloud-route.js';
import { parleySend, type CloudMessage } from './cloud-messages.js';
import { TemplateStore } from './cloud-templates.js';
import { hubVerifyRoutes } from './hub-verify.routes.js';
import { profileRoutes } from './profile.routes.js';
import { graphTemplateRoutes } from './graph-template.routes.js';
import { templateRoutes } from './template.routes.js';
import { accessTokenParam, cloudMessageBody, cloudSendAnswer, cloudSuccess, fieldsParam, selectFields, versionParam } from './cloud-schemas.js';

type Scope = InstanceRuntime;
const mediaParams = s.object({ version: versionParam, mediaId: s.text(512, { description: 'An upload id, or the id of a message with media.' }) }, ['version', 'mediaId']);
/** Queries the Cloud API's clients add (whatsapp-api-js names the phone number on media calls). */
const graphMembers = { phone_number_id: s.text(128), messaging_product: s.enum(['whatsapp']), access_token: accessTokenParam };
const graphQuery = s.object(graphMembers);
/** A read's query: Graph's `fields` too. */
const readQuery = s.object({ ...graphMembers, fields: fieldsParam });

/**
 * The WhatsApp Cloud API's Graph paths over Parley (docs/cloud-api.md): sends through the one send
 * pipeline (queue, pacing, idempotency), media, the phone number. Authenticated by the instance key as
 * a bearer token; failures in the Cloud API's envelope.
 */
export function cloudApiRoutes(ctx: ServerContext): RouteDefinition[] {
  const media = new CloudMediaStore(ctx);
  const templates = new TemplateStore(ctx.storage);
  const mediaUrl = (version: string, scope: Scope, id: string) => `${ctx.host.publicUrl}/${version}/${encodeURIComponent(scope.id)}/media/${encodeURIComponent(id)}`;
  return [
    ...templateRoutes(templates),
    ...graphTemplateRoutes(ctx, templates),
    ...hubVerifyRoutes(ctx),
    ...profileRoutes(ctx),
    defineRoute<{ version: string; phoneNumberId: string }, unknown, CloudMessage, Scope>({
      ...CLOUD_ROUTE, method: 'post', idempotent: true, path: '/{version}/{phoneNumberId}/messages', operationId: 'cloudSendMessage', params: phoneParams,
      summary: 'Send a message, or mark one read (WhatsApp Cloud API)', bodyLimit: 'media',
      description: 'The Cloud API\'s message bodies, sent as the matching `POST /{key}/message/…` (docs/cloud-api.md has the mapping). '
        + 'Answers `{messaging_product, contacts: [{input, wa_id}], messages: [{id, message_status: "accepted"}]}`; `status: "read"` with `message_id` '
        + '(and `typing_indicator`) answers `{success: true}`.',
      body: cloudMessageBody, response: cloudSendAnswer, errors: [403, 404, 409, 413, 422],
      handler: async ({ scope, params, body }) => {
        samePhone(scope, params.phoneNumberId);
        if (body.status === 'read') return new JsonReply(200, await markRead(scope, body));
        const send = await parleySend(media, templates, scope, body);
        const record = await ctx.sends.send(scope, send.suffix, send.body as never, body.context?.message_id);
        return new JsonReply(200, {
          messaging_product: 'whatsapp',
          contacts: [{ input: body.to ?? record.key.remoteJid, wa_id: addressNumber(scope.addressing, record.key.remoteJid) }],
          messages: [{ id: record.key.id, message_status: 'accepted' }],
        });
      },
    }),
    defineRoute<{ version: string; phoneNumberId: string }, unknown, unknown, Scope>({
      ...CLOUD_ROUTE, method: 'post', path: '/{version}/{phoneNumberId}/media', operationId: 'cloudUploadMedia', params: phoneParams, query: graphQuery,
      summary: 'Upload media (multipart/form-data: file, type, messaging_product)', bodyLimit: 'media',
      description: 'Answers `{id}`, an id to send with (`image.id`, …) and to read or delete at `/{version}/{media-id}`. At most `mediaBodyLimitBytes`.',
      response: s.openObject({ id: s.string() }, ['id']), errors: [404, 413],
      handler: async ({ scope, params, req }) => {
        samePhone(scope, params.phoneNumberId);
        return new JsonReply(200, { id: await media.upload(scope, req, ctx.config.mediaBodyLimitBytes) });
      },
    }),
    defineRoute<{ version: string; mediaId: string }, { phone_number_id?: string; fields?: string }, unknown, Scope>({
      ...CLOUD_ROUTE, method: 'get', path: '/{version}/{mediaId}', operationId: 'cloudGetObject', params: mediaParams, query: readQuery,
      summary: 'A media\'s description (url, mime_type, sha256, file_size), or the phone number when the id is the instance\'s',
      description: 'The `url` is downloaded with the same bearer token. A received or sent message\'s media answers by the message id.',
      response: s.openObject({ id: s.string(), messaging_product: s.string(), url: s.string(), mime_type: s.string(), sha256: s.string(), file_size: s.integer(), display_phone_number: s.string(), verified_name: s.string() }, ['id']),
      // A received media is fetched to be described: GET /{key}/message/{id}/media's failures (413 over media.maxDownloadBytes, 502, 504).
      errors: [404, 413, 502, 504],
      handler: async ({ scope, params, query }) => {
        samePhone(scope, query.phone_number_id);
        if (params.mediaId === scope.id) return new JsonReply(200, selectFields(phoneNumber(scope), query.fields, ['id']));
        const found = await media.get(scope, params.mediaId);
        return new JsonReply(200, selectFields({
          messaging_product: 'whatsapp', url: mediaUrl(params.version, scope, params.mediaId), mime_type: found.mimeType, sha256: found.sha256, file_size: found.size, id: params.mediaId,
        }, query.fields, ['id']));
      },
    }),
    defineRoute<{ version: string; phoneNumberId: string; mediaId: string }, unknown, unknown, Scope>({
      ...CLOUD_ROUTE, method: 'get', path: '/{version}/{phoneNumberId}/media/{mediaId}', operationId: 'cloudDownloadMedia',
      params: s.object({ version: versionParam, phoneNumberId: s.text(128), mediaId: s.text(512) }, ['version', 'phoneNumberId', 'mediaId']),
      summary: 'The bytes of a media (the url GET /{version}/{media-id} answers)', response: { binary: ['*/*'] }, errors: [404, 413, 502, 504],
      handler: async ({ scope, params }) => {
        samePhone(scope, params.phoneNumberId);
        return BinaryReply.of(await media.open(scope, params.mediaId));
      },
    }),
    defineRoute<{ version: string; mediaId: string }, { phone_number_id?: string }, unknown, Scope>({
      ...CLOUD_ROUTE, method: 'delete', path: '/{version}/{mediaId}', operationId: 'cloudDeleteMedia', params: mediaParams, query: graphQuery,
      summary: 'Delete an uploaded media', response: cloudSuccess, errors: [404],
      handler: async ({ scope, params, query }) => {
        samePhone(scope, query.phone_number_id);
        await media.delete(scope, params.mediaId);
        return new JsonReply(200, { success: true });
      },
    }),
  ];

  async function markRead(scope: Scope, body: CloudMessage): Promise<{ success: true }> {
    if (!body.message_id) throw new ValidationError('message_id is required with status read', { fields: [{ field: 'message_id', message: 'is required' }] });
    const record = await ctx.sends.existing(scope, body.message_id);
    const jid = normalizeAddress(scope.addressing, record.key.remoteJid, 'message_id');
    const chats = connectedCapability(scope, 'chats');
    await markChatRead(ctx, jid, scope.id, chats);
    if (body.typing_indicator) await connectedCapability(scope, 'messaging').sendPresence({ to: jid, status: 'composing' });
    return { success: true };
  }
}

/** `GET /{version}/{phone-number-id}`: what Parley knows of the number (the connected account). */
function phoneNumber(scope: Scope): Record<string, unknown> {
  const user = scope.record.user;
  const number = user?.id ? addressNumber(scope.addressing, user.id) : undefined;
  return {
    id: scope.id,
    ...(number ? { display_phone_number: `+${number}` } : {}),
    ...(user?.name ? { verified_name: user.name } : {}),
  };
}
