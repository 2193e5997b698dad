import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Marked, type Tokens } from 'marked';
import { gfmHeadingId } from 'marked-gfm-heading-id';

/** Where the rendered documentation is served: the index, the task guides and the reference pages. */
export const GUIDES_PATH = '/docs/guides';
export const REFERENCE_PATH = '/docs/reference';

/** The repository's `docs/` directory, or why it is not there. */
export type DocsFiles = { dir: string } | { missing: string };

/**
 * Finds the repository's `docs/` (with its index `README.md` and `guides/`) above this module: the
 * server runs from a checkout (`npm start`, the Docker image), where it sits beside `packages/`.
 */
export function findDocs(from = dirname(fileURLToPath(import.meta.url))): DocsFiles {
  for (let dir = from; ; dir = dirname(dir)) {
    const docs = join(dir, 'docs');
    if (existsSync(join(docs, 'README.md')) && existsSync(join(docs, 'guides'))) return { dir: docs };
    if (dirname(dir) === dir) return { missing: `no docs/ directory with README.md and guides/ above ${from}` };
  }
}

/** A page: the markdown file it renders, relative to `docs/`. */
type PageFile = 'README.md' | `guides/${string}.md` | `${string}.md`;

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * Where a link written in `from` (a file relative to `docs/`) points on this server: a served page's
 * URL (its `#fragment` kept), the link unchanged when it is absolute or a fragment, or undefined for a
 * repository file the server does not serve (source, examples, package READMEs).
 */
export function servedHref(from: PageFile, href: string, pages: ReadonlySet<string>): string | undefined {
  if (/^([a-z][a-z0-9+.-]*:|#|\/)/i.test(href)) return href;
  const [path = '', fragment] = href.split('#', 2);
  const target = posix.normalize(posix.join(posix.dirname(from), path));
  const hash = fragment === undefined ? '' : `#${fragment}`;
  if (target === 'README.md') return `${GUIDES_PATH}${hash}`;
  if (!pages.has(target)) return undefined;
  const name = posix.basename(target, '.md');
  return `${target.startsWith('guides/') ? GUIDES_PATH : REFERENCE_PATH}/${name}${hash}`;
}

/** Renders and caches the markdown of `docs/` as HTML pages, with links between them rewritten to their URLs. */
export class DocsPages {
  private readonly html = new Map<string, string>();
  private readonly pages: Set<string>;

  constructor(private readonly dir: string) {
    const md = (names: string[]) => names.filter((n) => n.endsWith('.md') && n !== 'README.md');
    this.pages = new Set([
      ...md(readdirSync(dir)),
      ...md(readdirSync(join(dir, 'guides'))).map((n) => `guides/${n}`),
    ]);
  }

  /** Names of the task guides (`getting-started`, …). */
  guides(): string[] {
    return [...this.pages].filter((p) => p.startsWith('guides/')).map((p) => posix.basename(p, '.md')).sort();
  }

  /** The index page (`docs/README.md`). */
  index(): string {
    return this.page('README.md');
  }

  /** A guide's page, or undefined when there is no such guide. */
  guide(name: string): string | undefined {
    return this.pages.has(`guides/${name}.md`) ? this.page(`guides/${name}.md`) : undefined;
  }

  /** A reference page (`rest-api`, `webhooks`, …), or undefined when there is none. */
  reference(name: string): string | undefined {
    return this.pages.has(`${name}.md`) ? this.page(`${name}.md`) : undefined;
  }

  private page(file: PageFile): string {
    let html = this.html.get(file);
    if (html === undefined) {
      html = this.render(file, readFileSync(join(this.dir, file), 'utf8'));
      this.html.set(file, html);
    }
    return html;
  }

  private render(file: PageFile, markdown: string): string {
    const pages = this.pages;
    const marked = new Marked(gfmHeadingId(), {
      renderer: {
        link(token: Tokens.Link) {
          const href = servedHref(file, token.href, pages);
          if (href !== undefined) {
            token.href = href;
            return false; // marked's own rendering, with the rewritten target
          }
          const path = posix.join('docs', posix.dirname(file), token.href);
          return `<span class="repo-link" title="${escapeHtml(`in the repository: ${path}`)}">${this.parser.parseInline(token.tokens)}</span>`;
        },
      },
    });
    const body = marked.parse(markdown, { async: false });
    const title = /^#\s+(.+)$/m.exec(markdown)?.[1]?.replace(/[`*_]/g, '') ?? 'Parley';
    return pageHtml(title, body);
  }
}

/** A documentation page: the rendered markdown under a navigation bar. */
function pageHtml(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(title)} — Parley</title>
  <link rel="stylesheet" href="${GUIDES_PATH}.css">
</head>
<body>
  <nav class="parley-docs-nav"><a href="${GUIDES_PATH}">Guides</a><a href="/docs">API reference</a><a href="/dashboard/">Dashboard</a></nav>
  <main class="parley-docs">
${body}  </main>
</body>
</html>
`;
}

/** The pages' stylesheet, also the navigation bar's on `/docs` (a file, so that a strict Content-Security-Policy holds). */
export const GUIDES_CSS = `body { margin: 0; }
nav.parley-docs-nav { display: flex; flex-wrap: wrap; gap: 1.5em; padding: .75em 1.5em; background: #12343b; font: 600 16px/1.4 system-ui, sans-serif; }
nav.parley-docs-nav a { color: #fff; text-decoration: none; }
main.parley-docs { max-width: 58em; margin: 0 auto; padding: 1em 1.5em 4em; font: 16px/1.55 system-ui, sans-serif; color: #1f2328; }
main.parley-docs pre { background: #f6f8fa; padding: .8em 1em; overflow-x: auto; border-radius: 6px; }
main.parley-docs code { font: 14px/1.45 ui-monospace, monospace; }
main.parley-docs :not(pre) > code { background: #eff1f3; padding: .1em .3em; border-radius: 4px; }
main.parley-docs table { border-collapse: collapse; display: block; overflow-x: auto; }
main.parley-docs th, main.parley-docs td { border: 1px solid #d0d7de; padding: .35em .7em; text-align: left; vertical-align: top; }
main.parley-docs .repo-link { border-bottom: 1px dotted #888; }
`;

/** Headers of the pages: nothing but this server's stylesheet is loaded, no framing, no sniffing. */
export const GUIDES_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "default-src 'none'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
};
