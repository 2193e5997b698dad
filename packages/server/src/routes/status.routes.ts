import type { MediaInput, StatusCapability, StatusStory } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { dataResponse, s } from '../http/schema.js';
import { keyParams, urlField } from '../schemas/common.schemas.js';
import { statusJidListField, statusStorySchema } from '../schemas/status.schemas.js';
import { connectedCapability, personAddress } from './instance-guards.js';

type Scope = InstanceRuntime;
const tag = 'Status stories';

const AUDIENCE = 'The story goes to `status@broadcast` for the contacts in `statusJidList` (empty or absent: the channel\'s default '
  + 'audience — on WhatsApp the contacts of the account\'s address book, those known by LID only under their number when WhatsApp told it; '
  + 'on the sandbox every stored contact); a receiving instance keeps it only when its `receive_status_message` flag is on. Answers `data`: the story '
  + '(`id`, `type`, `statusJidList`, `timestamp`); the poster\'s copy is in its `status@broadcast` chat (GET /{key}/chat/status@broadcast/messages).';
const caption = s.string({ maxLength: 1024 });

/** Spec 4.13: status stories (text, image, video, audio) and mentions in them. */
export function statusRoutes(ctx: ServerContext): RouteDefinition[] {
  const status = (rt: Scope) => connectedCapability(rt, 'status');
  /** The story's audience as JIDs: the given list (each entry checked), or empty for the channel's default audience. */
  const audience = (rt: Scope, list: string[] | undefined): string[] =>
    (list ?? []).map((entry, i) => personAddress(rt.addressing, entry, `body.statusJidList[${i}]`));
  /** Posts a media story and keeps its bytes for GET /{key}/message/{id}/media, like sent media. */
  const postMedia = async (rt: Scope, url: string, kind: 'image' | 'video' | 'audio', list: string[] | undefined,
    post: (capability: StatusCapability, media: MediaInput, jids: string[]) => Promise<StatusStory>) => {
    const capability = status(rt);
    const jids = audience(rt, list);
    const media = await ctx.media.resolve(url, 'body.url', kind, undefined, rt.record);
    const story = await post(capability, media, jids);
    await ctx.storage.media.put(rt.id, story.id, { data: media.data, mimetype: media.mimetype, ...(media.fileName ? { fileName: media.fileName } : {}) });
    return { data: story };
  };
  return [
    defineRoute<unknown, unknown, { text: string; statusJidList?: string[]; backgroundColor?: string; font?: number }, Scope>({
      method: 'post', idempotent: true, path: '/{key}/status/text', operationId: 'postTextStatus', tag, auth: 'instance', params: keyParams,
      summary: 'Post a text story', description: `${AUDIENCE} \`backgroundColor\` and \`font\` are extensions.`,
      body: s.object({
        text: s.text(700),
        statusJidList: statusJidListField,
        backgroundColor: s.string({ pattern: '^#([0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$', description: 'Extension: #RRGGBB or #AARRGGBB.' }),
        font: s.integer({ minimum: 0, maximum: 9, description: 'Extension: WhatsApp font index.' }),
      }, ['text']),
      response: dataResponse(statusStorySchema), errors: [409, 422],
      handler: async ({ scope, body }) => {
        const capability = status(scope);
        const jids = audience(scope, body.statusJidList);
        const options = { ...(body.backgroundColor ? { backgroundColor: body.backgroundColor } : {}), ...(body.font !== undefined ? { font: body.font } : {}) };
        return { data: await capability.text(body.text, jids, options) };
      },
    }),
    defineRoute<unknown, unknown, { url: string; caption?: string; statusJidList?: string[] }, Scope>({
      method: 'post', idempotent: true, path: '/{key}/status/image', operationId: 'postImageStatus', tag, auth: 'instance', params: keyParams,
      summary: 'Post an image story', description: `${AUDIENCE} \`statusJidList\` is an extension here.`,
      body: s.object({ url: urlField, caption, statusJidList: statusJidListField }, ['url']),
      bodyLimit: 'media',
      response: dataResponse(statusStorySchema), errors: [409, 413, 422],
      handler: async ({ scope, body }) => postMedia(scope, body.url, 'image', body.statusJidList, (c, media, jids) => c.image(media, body.caption, jids)),
    }),
    defineRoute<unknown, unknown, { url: string; caption?: string; statusJidList?: string[] }, Scope>({
      method: 'post', idempotent: true, path: '/{key}/status/video', operationId: 'postVideoStatus', tag, auth: 'instance', params: keyParams,
      summary: 'Post a video story', description: `${AUDIENCE} \`statusJidList\` is an extension here.`,
      body: s.object({ url: urlField, caption, statusJidList: statusJidListField }, ['url']),
      bodyLimit: 'media',
      response: dataResponse(statusStorySchema), errors: [409, 413, 422],
      handler: async ({ scope, body }) => postMedia(scope, body.url, 'video', body.statusJidList, (c, media, jids) => c.video(media, body.caption, jids)),
    }),
    defineRoute<unknown, unknown, { url: string; statusJidList?: string[] }, Scope>({
      method: 'post', idempotent: true, path: '/{key}/status/audio', operationId: 'postAudioStatus', tag, auth: 'instance', params: keyParams,
      summary: 'Post an audio story', description: `${AUDIENCE} \`statusJidList\` is an extension here.`,
      body: s.object({ url: urlField, statusJidList: statusJidListField }, ['url']),
      bodyLimit: 'media',
      response: dataResponse(statusStorySchema), errors: [409, 413, 422],
      handler: async ({ scope, body }) => postMedia(scope, body.url, 'audio', body.statusJidList, (c, media, jids) => c.audio(media, jids)),
    }),
    defineRoute<unknown, unknown, { jid: string; statusMsgId: string }, Scope>({
      method: 'post', idempotent: true, path: '/{key}/status/mention', operationId: 'mentionInStatus', tag, auth: 'instance', params: keyParams,
      summary: 'Mention a contact in one of the instance\'s stories',
      description: 'The contact gets a `statusMentionMessage` in its chat with the instance, and the story itself when it was not shared with it yet. '
        + 'Answers `data`: a story record of `type` `mention` (`id` is the mention message id, `statusJidList` the mentioned contact). '
        + 'A story that is not one of the instance\'s live (24 h) stories: 404 `status_not_found`.',
      body: s.object({ jid: s.string({ minLength: 1, maxLength: 128 }), statusMsgId: s.string({ pattern: '^[A-Za-z0-9]{1,64}$' }) }, ['jid', 'statusMsgId']),
      response: dataResponse(statusStorySchema), errors: [409, 422],
      handler: async ({ scope, body }) => {
        const capability = status(scope);
        return { data: await capability.mention(personAddress(scope.addressing, body.jid, 'body.jid'), body.statusMsgId) };
      },
    }),
  ];
}
