import { CHANNEL_ID_PATTERN, ConflictError, ownMember, ValidationError, type ChannelName } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { linksView } from '../instances/instance-view.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { dataResponse, messageResponse, s } from '../http/schema.js';
import { keyAnd, keyParams } from '../schemas/common.schemas.js';

type Scope = InstanceRuntime;
const tag = 'Social channels';

/**
 * Drivers name the link fields as the body spells them (`accessToken`); the API names every field
 * from its root (`body.accessToken`), in the message and in `details.field`.
 */
function underBody(err: unknown): unknown {
  if (!(err instanceof ValidationError)) return err;
  const details = err.details as Record<string, unknown> | undefined;
  const field = details?.field;
  if (typeof field !== 'string' || field.startsWith('body.')) return err;
  const message = err.message.startsWith(field) ? `body.${err.message}` : err.message;
  return new ValidationError(message, { ...details, field: `body.${field}` });
}

/**
 * Linking Instagram professional accounts and Facebook Pages to an instance (spec 1.6 `provider`).
 * Tokens are stored as secrets and never answered.
 */
export function linkRoutes(ctx: ServerContext): RouteDefinition[] {
  // The linkable channels are the registered social drivers (spec 1.6: Instagram and Messenger ship with Parley).
  const social = [...ctx.drivers.values()].filter((driver) => driver.role === 'social' && driver.link);
  const channelParam = keyAnd({
    // Without a social driver there is nothing to list: any channel id, answered as not available.
    channel: social.length > 0 ? s.enum(social.map((driver) => driver.name)) : s.string({ pattern: CHANNEL_ID_PATTERN.source }),
  });
  const linkView = s.openObject({ accountId: s.string(), username: s.string(), linkedAt: s.integer() }, ['accountId', 'linkedAt']);
  const socialDriver = (channel: ChannelName) => {
    const driver = ctx.registry.driver(channel, 'path.channel');
    if (driver.role !== 'social' || !driver.link) throw new ValidationError(`path.channel "${channel}" cannot be linked`);
    return driver;
  };
  return [
    defineRoute<unknown, unknown, unknown, Scope>({
      method: 'get', path: '/{key}/instance/links', operationId: 'listLinks', tag, auth: 'instance', params: keyParams,
      summary: 'Linked social channels (ids only; tokens are never answered)',
      response: dataResponse(s.openObject(Object.fromEntries(social.map((driver) => [driver.name, linkView])))),
      handler: async ({ scope }) => ({ data: linksView(scope.record) }),
    }),
    defineRoute<{ channel: ChannelName }, unknown, Record<string, string>, Scope>({
      method: 'post', path: '/{key}/instance/links/{channel}', operationId: 'linkChannel', tag, auth: 'instance', params: channelParam,
      summary: 'Link an Instagram professional account or a Facebook Page; the token is checked against the Graph API first',
      description: 'Answers the link without its secrets. A token, app secret or account id the Graph API refuses answers 400 naming the field, with the Graph message; a Graph outage or rate limit answers 502 `upstream_error` (retryable). Nothing is stored on failure.',
      body: s.object({
        accessToken: s.text(1024), appSecret: s.text(256), verifyToken: s.text(256),
        accountId: s.string({ minLength: 1, maxLength: 64, pattern: '^\\d+$', examples: ['17841400000000000'], description: 'Instagram account id or Page id (entry[].id of inbound webhooks).' }),
      }, ['accessToken', 'appSecret', 'verifyToken', 'accountId']),
      response: dataResponse(linkView), errors: [409, 502, 503],
      handler: async ({ scope, params, body }) => {
        // Meta signs each delivery with one app secret: an account linked to two instances could
        // never verify for both, so it belongs to one instance at a time.
        const holder = await ctx.registry.linkedAccounts.find(params.channel, body.accountId);
        if (holder && holder.instanceId !== scope.id) throw new ConflictError(`this ${params.channel} account is already linked to another instance`, 'account_already_linked');
        const link = await socialDriver(params.channel).link!(body).catch((err: unknown) => {
          throw underBody(err);
        });
        const record = await ctx.registry.link(scope.id, params.channel, link);
        return { data: linksView(record)[params.channel] as Record<string, unknown> };
      },
    }),
    defineRoute<{ channel: ChannelName }, unknown, unknown, Scope>({
      method: 'delete', path: '/{key}/instance/links/{channel}', operationId: 'unlinkChannel', tag, auth: 'instance', params: channelParam,
      summary: 'Unlink a social channel', response: messageResponse,
      handler: async ({ scope, params }) => {
        if (!ownMember(scope.record.links, params.channel)) throw new ValidationError(`path.channel: ${params.channel} is not linked`);
        await ctx.registry.unlink(scope.id, params.channel);
        return { message: `${params.channel} unlinked` };
      },
    }),
  ];
}
