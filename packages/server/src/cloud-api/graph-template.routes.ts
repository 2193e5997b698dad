import { randomInt } from 'node:crypto';
import { NotFoundError, ParleyError } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { defineRoute, JsonReply, type RouteDefinition } from '../http/route.js';
import { s } from '../http/schema.js';
import { CLOUD_ROUTE, samePhone } from './cloud-route.js';
import { accessTokenParam, cloudSuccess, versionParam } from './cloud-schemas.js';
import { SERVER, TEMPLATE_NAME, type TemplateStore } from './cloud-templates.js';
import { fromGraph, graphTemplateCreateSchema, toGraph, type GraphTemplateCreate } from './graph-templates.js';
import type { CloudTemplate } from './template-render.js';

type Scope = InstanceRuntime;
type Params = { version: string; businessAccountId: string };
interface ListQuery { access_token?: string; limit?: string; after?: string; name?: string; language?: string; status?: string; category?: string; fields?: string }

const path = '/{version}/{businessAccountId}/message_templates';
const params = s.object({ version: versionParam, businessAccountId: s.text(128, { description: 'The business account id: the instance id (Parley has no business accounts).' }) }, ['version', 'businessAccountId']);
/** Meta's page size when `limit` is not given. */
const DEFAULT_LIMIT = 25;
const cursorOf = (t: CloudTemplate) => Buffer.from(`${t.name}:${t.language}`).toString('base64url');
const keyOf = (t: CloudTemplate) => `${t.name}:${t.language}`;
/** A Graph-like template id: digits, unique within the instance's templates. */
const newTemplateId = () => `${randomInt(1e6, 1e7)}${randomInt(1e8, 1e9)}`;

/**
 * A business account's message templates on the Graph API's paths (docs/cloud-api.md): list (the
 * instance's own, then the server-wide ones it has none of by name and language), create and delete as
 * Meta documents them. The business account id is the instance id; the instance key authenticates.
 */
export function graphTemplateRoutes(ctx: ServerContext, store: TemplateStore): RouteDefinition[] {
  return [
    defineRoute<Params, ListQuery, unknown, Scope>({
      ...CLOUD_ROUTE, method: 'get', path, operationId: 'cloudListTemplates', params,
      query: s.object({
        access_token: accessTokenParam, limit: s.string({ pattern: '^[1-9][0-9]{0,3}$', description: `Page size (default ${DEFAULT_LIMIT}).` }),
        after: s.string({ maxLength: 1400, description: 'The cursor `paging.cursors.after` of the previous page.' }), fields: s.string({ maxLength: 512 }),
        name: s.string({ maxLength: 512, description: 'Only the templates of this name.' }), language: s.string({ maxLength: 15 }),
        status: s.string({ maxLength: 32, description: 'Only this status: every template is APPROVED.' }), category: s.string({ maxLength: 32 }),
      }),
      summary: 'The templates the instance may send, as the Graph API lists approved templates (its own, then the server-wide ones)',
      description: 'Pages of `limit` (default 25) by name and language; `paging.next` (with the `access_token` of the request, when it had one) reads the next page.',
      response: s.openObject({ data: s.array(s.anyObject()), paging: s.anyObject() }, ['data']), errors: [404],
      handler: async ({ scope, params: p, query }) => {
        samePhone(scope, p.businessAccountId);
        const after = query.after === undefined ? '' : Buffer.from(query.after, 'base64url').toString('utf8');
        const limit = query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit);
        const matching = (await store.available(scope.id))
          .filter((t) => (query.name === undefined || t.name === query.name) && (query.language === undefined || t.language === query.language))
          .filter((t) => (query.status === undefined || query.status.toUpperCase() === 'APPROVED') && (query.category === undefined || (t.category ?? 'UTILITY') === query.category.toUpperCase()))
          .sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : 1));
        const rest = matching.filter((t) => keyOf(t) > after);
        const page = rest.slice(0, limit);
        const paging: Record<string, unknown> = page.length === 0 ? {} : { cursors: { before: cursorOf(page[0]!), after: cursorOf(page.at(-1)!) } };
        if (rest.length > limit) {
          const next = new URL(`${ctx.host.publicUrl}/${p.version}/${encodeURIComponent(p.businessAccountId)}/message_templates`);
          for (const [k, v] of Object.entries({ ...query, after: cursorOf(page.at(-1)!) })) if (v !== undefined) next.searchParams.set(k, v);
          paging.next = next.href;
        }
        return new JsonReply(200, { data: page.map(toGraph), paging });
      },
    }),
    defineRoute<Params, unknown, GraphTemplateCreate, Scope>({
      ...CLOUD_ROUTE, method: 'post', path, operationId: 'cloudCreateTemplate', params, query: s.object({ access_token: accessTokenParam }),
      summary: 'Create a message template of the instance (approved at once)',
      description: 'Meta\'s create-template request: `name`, `language`, `category`, `components` (a text `HEADER`, a `BODY`, a `FOOTER`, `BUTTONS` '
        + 'of `QUICK_REPLY` or `URL`). Answers `{id, status: "APPROVED", category}`. A template of the same name and language answers 400 '
        + '(code 100, subcode 2388024): delete it first. It is sent before a server-wide template of its name and language.',
      body: graphTemplateCreateSchema, response: s.openObject({ id: s.string(), status: s.string(), category: s.string() }, ['id', 'status', 'category']), errors: [404],
      handler: async ({ scope, params: p, body }) => {
        samePhone(scope, p.businessAccountId);
        const { template, fields } = fromGraph(body);
        const stored = await store.create(scope.id, { ...template, id: newTemplateId() }, fields);
        return new JsonReply(200, { id: stored.id, status: 'APPROVED', category: stored.category });
      },
    }),
    defineRoute<Params, { name: string; hsm_id?: string }, unknown, Scope>({
      ...CLOUD_ROUTE, method: 'delete', path, operationId: 'cloudDeleteTemplate', params,
      query: s.object({
        name: s.string({ pattern: TEMPLATE_NAME, description: 'Deletes every language of the template of this name.' }),
        hsm_id: s.string({ pattern: '^[0-9]{1,32}$', description: 'With `name`: only the template of this id (one language).' }), access_token: accessTokenParam,
      }, ['name']),
      summary: 'Delete an instance\'s message template: every language of a name, or one by hsm_id',
      description: 'Server-wide templates are deleted through the admin API only (404 here).',
      response: cloudSuccess, errors: [404],
      handler: async ({ scope, params: p, query }) => {
        samePhone(scope, p.businessAccountId);
        const doomed = (await store.list(scope.id)).filter((t) => t.name === query.name && (query.hsm_id === undefined || t.id === query.hsm_id));
        if (doomed.length === 0) {
          const shared = (await store.list(SERVER)).some((t) => t.name === query.name);
          const which = `template ${query.name}${query.hsm_id === undefined ? '' : ` with id ${query.hsm_id}`}`;
          if (shared && query.hsm_id === undefined) {
            throw new ParleyError(404, 'template_not_found', `${which} is server-wide, not this business account's: DELETE /admin/cloud-api/templates/{name}/{language} removes it`);
          }
          throw new NotFoundError(which, 'template_not_found');
        }
        for (const t of doomed) await store.delete(scope.id, t.name, t.language);
        return new JsonReply(200, { success: true });
      },
    }),
  ];
}
