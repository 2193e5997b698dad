import type { Response } from 'express';
import { NotFoundError, ServiceUnavailableError } from '@parley/core';
import { DocsPages, GUIDES_CSS, GUIDES_HEADERS, GUIDES_PATH, REFERENCE_PATH, type DocsFiles } from './guides.js';
import { defineRoute, TextReply, type RouteDefinition } from './route.js';
import { s } from './schema.js';

const HTML = 'text/html; charset=utf-8';
const nameParams = s.object({ name: s.string({ pattern: '^[a-z0-9-]{1,64}$', description: 'The page, as its markdown file is named without `.md`.' }) }, ['name']);

/**
 * The task guides and reference pages of the repository's `docs/`, rendered from markdown on first
 * request (no CDN, works offline), each page linking the others, the API reference (`/docs`) and the
 * dashboard. Without a `docs/` directory (a server installed without its repository) they answer 503
 * `service_unavailable` saying so; the API is unaffected.
 */
export function guideRoutes(files: DocsFiles): RouteDefinition[] {
  const pages = 'dir' in files ? new DocsPages(files.dir) : undefined;
  const served = (res: Response): DocsPages => {
    if (!pages) throw new ServiceUnavailableError(`the documentation pages are not available: ${(files as { missing: string }).missing}`);
    for (const [name, value] of Object.entries(GUIDES_HEADERS)) res.setHeader(name, value);
    return pages;
  };
  const tag = 'Operations';
  return [
    defineRoute({
      method: 'get', path: GUIDES_PATH, operationId: 'docsGuides', tag, auth: 'public',
      summary: 'The documentation index: task guides (getting started, sending, webhooks, streams, dead letters, clusters, moving from Evolution API) and the reference pages',
      response: { text: 'text/html' },
      handler: async ({ res }) => new TextReply(served(res).index(), HTML),
    }),
    defineRoute<{ name: string }>({
      method: 'get', path: `${GUIDES_PATH}/{name}`, operationId: 'docsGuide', tag, auth: 'public', params: nameParams,
      summary: 'One task guide (`docs/guides/<name>.md`), rendered', description: 'Unknown guide: 404 `page_not_found`.',
      response: { text: 'text/html' }, errors: [404],
      handler: async ({ params, res }) => {
        const html = served(res).guide(params.name);
        if (html === undefined) throw new NotFoundError(`guide ${params.name}`, 'page_not_found');
        return new TextReply(html, HTML);
      },
    }),
    defineRoute<{ name: string }>({
      method: 'get', path: `${REFERENCE_PATH}/{name}`, operationId: 'docsReference', tag, auth: 'public', params: nameParams,
      summary: 'One reference page (`docs/<name>.md`: rest-api, webhooks, events, queue, …), rendered', description: 'Unknown page: 404 `page_not_found`.',
      response: { text: 'text/html' }, errors: [404],
      handler: async ({ params, res }) => {
        const html = served(res).reference(params.name);
        if (html === undefined) throw new NotFoundError(`reference page ${params.name}`, 'page_not_found');
        return new TextReply(html, HTML);
      },
    }),
    defineRoute({
      method: 'get', path: `${GUIDES_PATH}.css`, operationId: 'docsGuidesStyle', tag, auth: 'public',
      summary: 'Stylesheet of the documentation pages', response: { text: 'text/css' },
      handler: async () => new TextReply(GUIDES_CSS, 'text/css; charset=utf-8'),
    }),
  ];
}
