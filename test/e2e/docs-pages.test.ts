import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import type { Logger } from '@parley/core';
import { createLogger, findDocs, loadConfig, ParleyServer } from '@parley/server';
import { TEST_HOST_ADMIN_TOKEN } from '@parley/testkit/host';
import { browserUnavailable, launchChromium, screenshot, signIn } from '../support/browser.js';
import { guideNames } from '../support/doc-examples.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

const REFERENCE = ['rest-api', 'webhooks', 'events', 'queue', 'sinks', 'cluster', 'plugins'];
const hrefs = (html: string): string[] => [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));

/**
 * The guides are reachable: `/docs` (Swagger UI) and the dashboard link them, the server renders them
 * (and the reference pages) from docs/ with their links rewritten to served pages, and every link
 * between them leads to a page and, with a #fragment, to a heading of it.
 */
describe('documentation pages', () => {
  let t: TestServer;
  before(async () => { t = await startTestServer(); });
  after(async () => t.stop());

  it('/docs links the guides and the dashboard, and loads the bar\'s stylesheet from this server', async () => {
    const html = (await t.request('GET', '/docs')).body as string;
    assert.ok(hrefs(html).includes('/docs/guides'));
    assert.ok(hrefs(html).includes('/dashboard/'));
    const css = await t.request('GET', '/docs/guides.css');
    assert.equal(css.status, 200);
    assert.match(css.headers.get('content-type') ?? '', /^text\/css/);
    assert.match(css.body as string, /nav\.parley-docs-nav/);
    const openapi = (await t.request('GET', '/openapi.json')).body as { info: { description: string } };
    assert.match(openapi.info.description, /\[\/docs\/guides\]\(\/docs\/guides\)/);
  });

  it('the index lists every guide and reference page, each rendered with its code blocks', async () => {
    const index = await t.request('GET', '/docs/guides');
    assert.equal(index.status, 200);
    assert.equal(index.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.match(index.headers.get('content-security-policy') ?? '', /default-src 'none'; style-src 'self'/);
    const links = hrefs(index.body as string);
    for (const name of guideNames()) assert.ok(links.includes(`/docs/guides/${name}`), name);
    for (const name of REFERENCE) assert.ok(links.includes(`/docs/reference/${name}`), name);
    const guide = (await t.request('GET', '/docs/guides/getting-started')).body as string;
    assert.match(guide, /<title>Getting started — Parley<\/title>/);
    assert.match(guide, /<pre><code class="language-sh">curl -s \$B\/healthz/);
    assert.match(guide, /<h2 id="1-start-the-server">/);
    const cluster = (await t.request('GET', '/docs/reference/cluster')).body as string;
    assert.match(cluster, /<span class="repo-link" title="in the repository: examples\/cluster"><code>examples\/cluster\/<\/code><\/span>/,
      'a repository file the server does not serve is named, not linked');
  });

  it('every link between the pages leads to a served page and an existing heading', async () => {
    const seen = new Map<string, string>();
    const queue = ['/docs/guides'];
    while (queue.length) {
      const path = queue.shift()!;
      if (seen.has(path)) continue;
      const res = await t.request('GET', path);
      assert.equal(res.status, 200, path);
      seen.set(path, res.body as string);
      for (const href of hrefs(res.body as string)) {
        assert.doesNotMatch(href, /\.md(#|$)/, `${path} links ${href} unrewritten`);
        const target = href.split('#')[0]!;
        if (/^\/docs\/(guides|reference)\//.test(target) || target === '/docs/guides') queue.push(target);
      }
    }
    assert.ok(seen.size >= guideNames().length + REFERENCE.length + 1, [...seen.keys()].join());
    for (const [path, html] of seen) {
      for (const href of hrefs(html).filter((h) => /^\/docs\/(guides|reference)/.test(h) && h.includes('#'))) {
        const [page, id] = href.split('#') as [string, string];
        assert.ok(seen.get(page)?.includes(`id="${id}"`), `${path} links ${href}, which has no such heading`);
      }
    }
  });

  it('answers an unknown page 404 and a malformed name 400, in JSON', async () => {
    const missing = await t.request('GET', '/docs/guides/no-such-guide');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'page_not_found');
    assert.equal((await t.request('GET', '/docs/reference/no-such-page')).body.error.code, 'page_not_found');
    for (const bad of ['/docs/guides/..%2F..%2Fpackage', '/docs/reference/README', '/docs/reference/guides%2Fwebhooks']) {
      const res = await t.request('GET', bad);
      assert.equal(res.status, 400, bad);
      assert.equal(res.body.error.code, 'validation_failed', bad);
    }
    assert.deepEqual(t.server.undeclaredAnswers(), []);
  });
});

describe('documentation pages without a docs/ directory', () => {
  it('answer 503 saying why, and the API works', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-nodocs-'));
    const logger = createLogger({ level: 'silent' }) as unknown as Logger;
    const server = await ParleyServer.create({
      config: loadConfig({}, { port: 0, host: '127.0.0.1', dataDir, adminToken: TEST_HOST_ADMIN_TOKEN, plugins: [{ package: '@parley/storage-memory' }, { package: '@parley/channel-sandbox' }] }),
      logger, docs: findDocs(dataDir),
    });
    try {
      const url = await server.listen();
      assert.equal((await fetch(`${url}/healthz`)).status, 200);
      const res = await fetch(`${url}/docs/guides/getting-started`);
      assert.equal(res.status, 503);
      assert.match(((await res.json()) as { error: { message: string } }).error.message, /documentation pages are not available: no docs\/ directory/);
    } finally {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

const skip = browserUnavailable();
describe('the dashboard links the guides', { skip }, () => {
  let t: TestServer;
  let browser: Browser;
  before(async () => {
    t = await startTestServer();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('its main navigation leads to the guides, and from there to a guide', async () => {
    const page = await browser.newPage();
    await signIn(page, t.url, t.adminToken);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Guides' }).click();
    await page.getByRole('heading', { name: 'Parley documentation' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/docs/guides');
    await page.getByRole('link', { name: 'Getting started' }).first().click();
    await page.getByRole('heading', { name: 'Getting started', level: 1 }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/docs/guides/getting-started');
    await screenshot(page, 'docs-guide-getting-started');
  });
});
