import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { Logger } from '@parley/core';
import { createLogger, dashboardFiles, findDashboard, loadConfig, ParleyServer } from '@parley/server';
import { startTestHost, type TestHost } from '@parley/testkit/host';

const PLUGINS = [{ package: '@parley/storage-sqlite' }, { package: '@parley/channel-sandbox' }, { package: '@parley/webhook-native' }];

describe('the dashboard as the server serves it', () => {
  let host: TestHost;
  before(async () => {
    host = await startTestHost({ plugins: PLUGINS });
  });
  after(() => host.stop());

  it('is built by npm run build and served at /dashboard with its content type, a strict CSP and revalidation', async () => {
    const files = findDashboard();
    assert.ok('dir' in files, `the dashboard is built: ${'missing' in files ? files.missing : ''}`);
    for (const path of ['/dashboard', '/dashboard/']) {
      const res = await fetch(`${host.url}${path}`);
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.equal(res.headers.get('cache-control'), 'no-cache', 'a new build is picked up at the next load');
      assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'self'.*script-src 'self'.*connect-src 'self'/);
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
      assert.equal(await res.text(), readFileSync(join(files.dir, 'index.html'), 'utf8'));
    }
  });

  it('serves every asset the page loads from this server (no CDN), cached for a year under content-hashed names', async () => {
    const html = await (await fetch(`${host.url}/dashboard/`)).text();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!).filter((ref) => !ref.startsWith('data:'));
    assert.ok(refs.some((r) => r.endsWith('.js')) && refs.some((r) => r.endsWith('.css')), `a script and a style sheet: ${refs.join(', ')}`);
    const types: Record<string, RegExp> = { js: /^text\/javascript; charset=utf-8$/, css: /^text\/css; charset=utf-8$/ };
    for (const ref of refs) {
      assert.match(ref, /^\/dashboard\/assets\/[\w-]+-[\w-]{8}\.(js|css)$/, 'a local, content-hashed asset');
      const res = await fetch(`${host.url}${ref}`);
      assert.equal(res.status, 200, ref);
      assert.match(res.headers.get('content-type') ?? '', types[ref.split('.').pop()!]!);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      const body = await res.text();
      assert.doesNotMatch(body, /https?:\/\/(?!www\.w3\.org)[a-z0-9.-]+\.[a-z]{2,}\/[\w./-]*\.(?:js|css|woff2?)\b/i, `${ref} loads nothing from elsewhere`);
    }
  });

  it('labels its requests /dashboard in the metrics, not as unmatched paths', async () => {
    await fetch(`${host.url}/dashboard/`);
    const text = await host.client.call('metrics');
    assert.match(text, /parley_http_request_duration_seconds_count\{method="GET",route="\/dashboard",status="200"\} [1-9]/);
  });

  it('answers 404 as JSON for files it does not have', async () => {
    for (const path of ['/dashboard/assets/missing-12345678.js', '/dashboard/settings']) {
      const res = await fetch(`${host.url}${path}`);
      assert.equal(res.status, 404, path);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'route_not_found');
    }
  });

  it('redirects a browser asking for / to the dashboard; API clients still get the JSON', async () => {
    const browser = await fetch(`${host.url}/`, { redirect: 'manual', headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
    assert.equal(browser.status, 302);
    assert.equal(browser.headers.get('location'), '/dashboard/');
    const api = await host.client.call('root');
    assert.equal(api.data.dashboard, '/dashboard/');
    const any = await fetch(`${host.url}/`, { redirect: 'manual', headers: { accept: '*/*' } });
    assert.equal(any.status, 200, 'curl and other clients without a preference get the JSON');
    assert.deepEqual(host.server.undeclaredAnswers(), []);
  });
});

describe('a server without a built dashboard', () => {
  it('still starts, says so in one log line, and answers /dashboard with 503 naming the fix', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-nodash-'));
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn', destination: new Writable({ write: (chunk, _e, done) => { lines.push(String(chunk)); done(); } }) }) as unknown as Logger;
    const missingDir = join(dataDir, 'no-such-build');
    const server = await ParleyServer.create({
      config: loadConfig({}, { port: 0, host: '127.0.0.1', dataDir, adminToken: 'test-admin-token-0123456789', plugins: PLUGINS }),
      logger, dashboard: dashboardFiles(missingDir),
    });
    try {
      const url = await server.listen();
      assert.equal((await fetch(`${url}/healthz`)).status, 200, 'the API works');
      const res = await fetch(`${url}/dashboard/`);
      assert.equal(res.status, 503);
      const body = (await res.json()) as { error: { code: string; message: string } };
      assert.equal(body.error.code, 'dashboard_not_built');
      assert.match(body.error.message, /run `npm run build`/);
      const warned = lines.map((l) => JSON.parse(l) as { msg: string }).filter((l) => l.msg.startsWith('dashboard not served'));
      assert.equal(warned.length, 1);
      assert.match(warned[0]!.msg, new RegExp(`no ${join(missingDir, 'index.html').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}.*the REST API is unaffected`));
    } finally {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
