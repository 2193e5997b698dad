import { NotFoundError } from '@parley/core';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { dataResponse, messageResponse, s } from '../http/schema.js';
import { LANGUAGE_CODE, SERVER, TEMPLATE_NAME, templateSchema, templateView, type TemplateStore } from './cloud-templates.js';
import type { CloudTemplate } from './template-render.js';

const tag = 'Admin';
const templateParams = s.object({
  name: s.string({ pattern: TEMPLATE_NAME, examples: ['order_update'], description: 'Template name: lower-case letters, digits and underscores.' }),
  language: s.string({ pattern: LANGUAGE_CODE, examples: ['pt_BR'], description: 'Language code as the Cloud API names it (`en`, `en_US`, `pt_BR`).' }),
}, ['name', 'language']);

/**
 * The admin API of the server-wide templates (docs/cloud-api.md): every instance may send them, after
 * its own templates (graph-template.routes.ts) of the same name and language.
 */
export function templateRoutes(store: TemplateStore): RouteDefinition[] {
  const found = async (name: string, language: string): Promise<CloudTemplate> => {
    const template = await store.get(SERVER, name, language);
    if (!template) throw new NotFoundError(`template ${name} in ${language}`, 'template_not_found');
    return template;
  };
  return [
    defineRoute({
      method: 'get', path: '/admin/cloud-api/templates', operationId: 'adminListTemplates', tag, auth: 'admin',
      summary: 'The server-wide message templates the Cloud API surface renders, by name and language', response: dataResponse(s.array(templateView)),
      handler: async () => ({ data: await store.list(SERVER) }),
    }),
    defineRoute<{ name: string; language: string }, unknown, Omit<CloudTemplate, 'name' | 'language'>>({
      method: 'put', path: '/admin/cloud-api/templates/{name}/{language}', operationId: 'adminPutTemplate', tag, auth: 'admin', params: templateParams,
      summary: 'Create or replace a server-wide message template',
      description: 'A Cloud API send of `type: "template"` with this name and `language.code` is rendered to a message: a text (with the footer '
        + 'below the body), a titled message when there is a header, reply buttons for `quick_reply` buttons, link buttons for `url` ones. '
        + 'Placeholders are numbered without gaps (`{{1}}`, `{{2}}`) or all named (`{{first_name}}`); buttons are all of one type. '
        + 'Every instance may send it, unless it has its own template of that name and language (`POST /{version}/{waba-id}/message_templates`).',
      body: templateSchema, response: dataResponse(templateView),
      handler: async ({ params, body }) => ({ data: await store.put(SERVER, { name: params.name, language: params.language, ...body }) }),
    }),
    defineRoute<{ name: string; language: string }>({
      method: 'get', path: '/admin/cloud-api/templates/{name}/{language}', operationId: 'adminGetTemplate', tag, auth: 'admin', params: templateParams,
      summary: 'A server-wide message template', response: dataResponse(templateView), errors: [404],
      handler: async ({ params }) => ({ data: await found(params.name, params.language) }),
    }),
    defineRoute<{ name: string; language: string }>({
      method: 'delete', path: '/admin/cloud-api/templates/{name}/{language}', operationId: 'adminDeleteTemplate', tag, auth: 'admin', params: templateParams,
      summary: 'Delete a server-wide message template', response: messageResponse, errors: [404],
      handler: async ({ params }) => {
        await found(params.name, params.language);
        await store.delete(SERVER, params.name, params.language);
        return { message: `template ${params.name} in ${params.language} deleted` };
      },
    }),
  ];
}
