import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { ParleyServer } from '../src/app/parley-server.js';
import { loadConfig } from '../src/config/config.js';
import { captureLogger } from './support.js';

const here = dirname(fileURLToPath(import.meta.url));
const ADMIN = 'internal-errors-admin-token';

describe('a handler throwing a non-Parley error', () => {
  let server: ParleyServer;
  let url: string;
  let dataDir: string;
  let lines: string[];

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'parley-internal-errors-'));
    const captured = captureLogger('info');
    lines = captured.lines;
    const config = loadConfig({}, {
      port: 0, host: '127.0.0.1', dataDir, adminToken: ADMIN, baseDir: here,
      plugins: [{ package: '@parley/storage-memory' }, { package: './fixtures/faulty-channel.plugin.js' }],
    });
    server = await ParleyServer.create({ config, logger: captured.logger });
    url = await server.listen();
  });
  after(async () => {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
    const res = await fetch(`${url}${path}`, {
      method, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  }

  function assertInternal(answer: { status: number; type: string | null; text: string }): void {
    assert.equal(answer.status, 500);
    assert.match(answer.type ?? '', /^application\/json/);
    assert.deepEqual(JSON.parse(answer.text), { status: 500, error: { code: 'internal_error', message: 'internal server error' } });
    assert.doesNotMatch(answer.text, /hunter2|secret|srv|\.js:|at |TypeError|RangeError|stack/i);
  }

  it('answers 500 internal_error without internals from a driver route', async () => {
    assertInternal(await call('GET', '/faulty/boom'));
  });

  it('answers 500 internal_error without internals from an instance route whose adapter fails', async () => {
    const created = await call('POST', '/admin/instances', { channel: 'faulty', name: 'broken' }, { authorization: `Bearer ${ADMIN}` });
    assert.equal(created.status, 200);
    const { key } = JSON.parse(created.text).data as { key: string };
    assertInternal(await call('POST', `/${key}/instance`));
    assertInternal(await call('POST', `/${key}/instance/pairing-code`, { phoneNumber: '5511999990000' }));
    // Nothing changed: the failed connect did not mark the instance as wanting a connection.
    const after = await call('GET', `/admin/instances/${key}`, undefined, { authorization: `Bearer ${ADMIN}` });
    assert.equal(JSON.parse(after.text).data.phoneConnected, false);
  });

  it('logs the failure for the operator, without the instance key in the path', async () => {
    const errors = lines.map((l) => JSON.parse(l) as Record<string, any>).filter((l) => l.level === 50);
    const unhandled = errors.filter((l) => l.msg === 'unhandled error');
    assert.ok(unhandled.length >= 3, JSON.stringify(errors));
    assert.ok(unhandled.some((l) => l.err?.message === 'database password is hunter2 (stack at /srv/secret/db.js:1)'));
    const requests = errors.filter((l) => l.msg === 'request');
    assert.deepEqual(requests.map((l) => [l.method, l.path, l.status]), [
      ['GET', '/faulty/boom', 500], ['POST', '/:key/instance', 500], ['POST', '/:key/instance/pairing-code', 500],
    ]);
  });

  it('logs an expected 503 by its code and message without a stack: the cluster\'s routine ones at info, others at warn', async () => {
    assert.equal((await call('GET', '/faulty/moving')).status, 503);
    assert.equal((await call('GET', '/faulty/unavailable')).status, 503);
    const refusals = () => lines.map((l) => JSON.parse(l) as Record<string, any>).filter((l) => l.msg === 'request failed');
    // Callers without credentials: the second line of the kind comes within a second (folded).
    for (let i = 0; i < 60 && refusals().length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(refusals().map(({ level, code, error, route, err }) => ({ level, code, error, route, err })), [
      { level: 30, code: 'instance_moving', error: 'instance x is owned by another cluster node or moving between nodes; retry', route: '/faulty/moving', err: undefined },
      { level: 40, code: 'service_unavailable', error: 'sqlite commit failed: SQLITE_FULL', route: '/faulty/unavailable', err: undefined },
    ]);
  });
});
