import { ValidationError } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { userView } from '../instances/profile-picture.js';
import { defineRoute, JsonReply, type RouteDefinition } from '../http/route.js';
import { s } from '../http/schema.js';
import { connectedCapability } from '../routes/instance-guards.js';
import { CLOUD_ROUTE, phoneParams, samePhone } from './cloud-route.js';
import { accessTokenParam, cloudSuccess, fieldsParam, selectFields } from './cloud-schemas.js';

type Scope = InstanceRuntime;
const common = { ...CLOUD_ROUTE, params: phoneParams };
/** Members of Meta's business profile Parley cannot write on a linked device (the phone's business app owns them). */
const READ_ONLY = ['address', 'description', 'email', 'vertical', 'websites', 'profile_picture_handle'] as const;

/**
 * The account's about text as the channel answers it for the account's own address, when the answer
 * asks for `about` and the channel can tell (it reads about texts and the account is connected);
 * undefined otherwise, and when the about text is unset or hidden.
 */
async function ownAbout(scope: InstanceRuntime, fields: string | undefined): Promise<string | undefined> {
  if (fields !== undefined && !fields.split(',').map((f) => f.trim()).includes('about')) return undefined;
  const contacts = scope.main.capabilities.contacts;
  const user = scope.user();
  if (!contacts || !user || !scope.isConnected()) return undefined;
  return (await contacts.status(user.id)).status ?? undefined;
}

/**
 * The Cloud API's business profile, where Parley has the data: read from what the channel reported
 * (description, websites, category as `vertical`, the profile picture) and the account's about text,
 * `about` written as that text (`PUT /{key}/instance/status`).
 */
export function profileRoutes(ctx: ServerContext): RouteDefinition[] {
  return [
    defineRoute<{ version: string; phoneNumberId: string }, { fields?: string }, unknown, Scope>({
      ...common, method: 'get', path: '/{version}/{phoneNumberId}/whatsapp_business_profile', operationId: 'cloudGetBusinessProfile',
      query: s.object({ fields: fieldsParam, access_token: accessTokenParam }),
      summary: 'The business profile (about, description, websites, vertical, profile_picture_url) as the channel reports it',
      description: '`about` is the account\'s about text, read from the channel while the instance is connected; the other members are what the '
        + 'channel reported of a business account. Members Parley has no data for are left out; `?fields=` filters.',
      response: s.openObject({ data: s.array(s.openObject({ messaging_product: s.string() }, ['messaging_product'])) }, ['data']), errors: [404, 502],
      handler: async ({ scope, params: p, query }) => {
        samePhone(scope, p.phoneNumberId);
        const b = scope.record.businessProfile;
        const picture = userView(scope.user(), ctx.host.publicUrl, scope.record.key)?.imageProfile;
        const about = await ownAbout(scope, query.fields);
        const all: Record<string, unknown> = {
          ...(about ? { about } : {}), ...(b?.description ? { description: b.description } : {}), ...(b?.website?.length ? { websites: b.website } : {}),
          ...(b?.category ? { vertical: b.category } : {}), ...(picture ? { profile_picture_url: picture } : {}), messaging_product: 'whatsapp',
        };
        return new JsonReply(200, { data: [selectFields(all, query.fields, ['messaging_product'])] });
      },
    }),
    defineRoute<{ version: string; phoneNumberId: string }, unknown, { about?: string } & Partial<Record<(typeof READ_ONLY)[number], unknown>>, Scope>({
      ...common, method: 'post', path: '/{version}/{phoneNumberId}/whatsapp_business_profile', operationId: 'cloudUpdateBusinessProfile',
      summary: 'Update the business profile: about (the other members are the business app\'s, refused)',
      body: s.object({
        messaging_product: s.enum(['whatsapp']), about: s.text(139, { description: 'The account\'s about text.' }),
        address: s.string(), description: s.string(), email: s.string(), vertical: s.string(), websites: s.array(s.string()), profile_picture_handle: s.string(),
      }, ['messaging_product'], { examples: [{ messaging_product: 'whatsapp', about: 'Open 9am to 6pm' }] }),
      response: cloudSuccess, errors: [404, 409, 422],
      handler: async ({ scope, params: p, body }) => {
        samePhone(scope, p.phoneNumberId);
        const refused = READ_ONLY.filter((k) => body[k] !== undefined);
        if (refused.length > 0) {
          throw new ValidationError(`${refused.join(', ')} cannot be changed through Parley: only about is (a linked device does not edit the business profile; a picture goes through PUT /{key}/instance/profile/picture)`, { fields: refused.map((k) => ({ field: `body.${k}`, message: 'cannot be changed' })) });
        }
        if (body.about !== undefined) await connectedCapability(scope, 'profile').setStatus(body.about);
        return new JsonReply(200, { success: true });
      },
    }),
  ];
}
