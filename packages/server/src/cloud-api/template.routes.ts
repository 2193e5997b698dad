import { NotFoundError } from '@parley/core';
import type { ServerContext } from '../app/server-context.js';
import type { InstanceRuntime } from '../instances/instance-runtime.js';
import { defineRoute, JsonReply, type RouteDefinition } from '../http/route.js';
import { dataResponse, messageResponse, s } from '../http/schema.js';
import { CLOUD_ROUTE, samePhone } from './cloud-route.js';
import { accessTokenParam, versionParam } from './cloud-schemas.js';
import { LANGUAGE_CODE, TEMPLATE_NAME, TemplateStore, templateSchema, templateView, type CloudTemplate } from './cloud-templates.js';

const tag = 'Admin';
const templateParams = s.object({
  name: s.string({ pattern: TEMPLATE_NAME, examples: ['order_update'], description: 'Template name: lower-case letters, digits and underscores.' }),
  language: s.string({ pattern: LANGUAGE_CODE, examples: ['pt_BR'], description: 'Language code as the Cloud API names it (`en`, `en_US`, `pt_BR`).' }),
}, ['name', 'language']);

/** A template as the Graph API's `message_templates` lists it (what Chatwoot's template sync reads). */
function graphTemplate(t: CloudTemplate): Record<string, unknown> {
  return {
    id: `${t.name}:${t.language}`, name: t.name, language: t.language, status: 'APPROVED', category: 'UTILITY',
    components: [
      ...(t.header ? [{ type: 'HEADER', format: 'TEXT', text: t.header }] : []),
      { type: 'BODY', text: t.body },
      ...(t.footer ? [{ type: 'FOOTER', text: t.footer }] : []),
      ...(t.buttons ? [{ type: 'BUTTONS', buttons: t.buttons.map((b) => (b.type === 'url' ? { type: 'URL', text: b.text, url: b.url } : { type: 'QUICK_REPLY', text: b.text })) }] : []),
    ],
  };
}

/**
 * The admin API of the Cloud API surface's templates (docs/cloud-api.md), and their list on the Graph
 * path `GET /{version}/{waba-id}/message_templates`, the business account id being the instance id.
 */
export function templateRoutes(ctx: ServerContext): RouteDefinition[] {
  const store = new TemplateStore(ctx.storage);
  const found = async (name: string, language: string): Promise<CloudTemplate> => {
    const template = await store.get(name, language);
    if (!template) throw new NotFoundError(`template ${name} in ${language}`, 'template_not_found');
    return template;
  };
  return [
    defineRoute<{ version: string; businessAccountId: string }, unknown, unknown, InstanceRuntime>({
      ...CLOUD_ROUTE, method: 'get', path: '/{version}/{businessAccountId}/message_templates', operationId: 'cloudListTemplates',
      params: s.object({ version: versionParam, businessAccountId: s.text(128, { description: 'The instance id (Parley has no business accounts).' }) }, ['version', 'businessAccountId']),
      query: s.object({ access_token: accessTokenParam, limit: s.string({ pattern: '^[0-9]{1,4}$' }), fields: s.string({ maxLength: 512 }) }),
      summary: 'The templates the instance may send, as the Graph API lists approved templates (every stored template is APPROVED)',
      response: s.openObject({ data: s.array(s.anyObject()), paging: s.anyObject() }, ['data']), errors: [404],
      handler: async ({ scope, params }) => {
        samePhone(scope, params.businessAccountId);
        return new JsonReply(200, { data: (await store.list()).map(graphTemplate), paging: {} });
      },
    }),
    defineRoute({
      method: 'get', path: '/admin/cloud-api/templates', operationId: 'adminListTemplates', tag, auth: 'admin',
      summary: 'The message templates the Cloud API surface renders, by name and language', response: dataResponse(s.array(templateView)),
      handler: async () => ({ data: await store.list() }),
    }),
    defineRoute<{ name: string; language: string }, unknown, Omit<CloudTemplate, 'name' | 'language'>>({
      method: 'put', path: '/admin/cloud-api/templates/{name}/{language}', operationId: 'adminPutTemplate', tag, auth: 'admin', params: templateParams,
      summary: 'Create or replace a message template',
      description: 'A Cloud API send of `type: "template"` with this name and `language.code` is rendered to a message: a text (with the footer '
        + 'below the body), a titled message when there is a header, reply buttons for `quick_reply` buttons, link buttons for `url` ones. '
        + 'Placeholders are numbered without gaps (`{{1}}`, `{{2}}`) or all named (`{{first_name}}`); buttons are all of one type.',
      body: templateSchema, response: dataResponse(templateView),
      handler: async ({ params, body }) => ({ data: await store.put(params.name, params.language, body) }),
    }),
    defineRoute<{ name: string; language: string }>({
      method: 'get', path: '/admin/cloud-api/templates/{name}/{language}', operationId: 'adminGetTemplate', tag, auth: 'admin', params: templateParams,
      summary: 'A message template', response: dataResponse(templateView), errors: [404],
      handler: async ({ params }) => ({ data: await found(params.name, params.language) }),
    }),
    defineRoute<{ name: string; language: string }>({
      method: 'delete', path: '/admin/cloud-api/templates/{name}/{language}', operationId: 'adminDeleteTemplate', tag, auth: 'admin', params: templateParams,
      summary: 'Delete a message template', response: messageResponse, errors: [404],
      handler: async ({ params }) => {
        await found(params.name, params.language);
        await store.delete(params.name, params.language);
        return { message: `template ${params.name} in ${params.language} deleted` };
      },
    }),
  ];
}
