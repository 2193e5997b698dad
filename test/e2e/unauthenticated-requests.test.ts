import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { Logger } from '@parley/core';
import { createLogger, dashboardFiles, loadConfig, ParleyServer } from '@parley/server';
import { deleteKeys } from '@parley/storage-redis/testing';
import { serviceUrlOrSkip, TcpProxy } from '@parley/testkit';
import { startTestServer, type TestServer } from '../support/test-server.js';

type Line = Record<string, any> & { level: number; msg: string };

/** Parsed pino lines of `chunks` at info level or above. */
function loud(chunks: string[]): Line[] {
  return chunks.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line).filter((l) => l.level >= 30);
}

/** Polls until the `msg` lines at `level` count `total` requests between them (each line's `requests`, 1 when absent), at most 5 s. */
async function linesCounting(read: () => Line[], level: number, msg: string, total: number): Promise<Line[]> {
  let lines: Line[] = [];
  for (let i = 0; i < 100; i++) {
    lines = read().filter((l) => l.level === level && l.msg === msg);
    if (lines.reduce((n, l) => n + (l.requests ?? 1), 0) >= total) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return lines;
}

/** The status line and raw answer a raw connection gets for `head`, within `waitMs`. */
function rawRequest(url: string, head: string, waitMs = 2000): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let text = '';
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(text);
    };
    const timer = setTimeout(done, waitMs);
    socket.setEncoding('utf8').on('data', (c: string) => (text += c)).on('end', done).on('error', done);
    socket.write(head);
  });
}

const UPGRADE = 'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';

/**
 * What a caller without credentials can make the server write to its log, and hold: anyone can send a
 * malformed path, a public route's bad request or a WebSocket upgrade, so a flood of them costs the
 * log at most a line a second, and a refused upgrade does not keep its connection.
 */
describe('requests without credentials', () => {
  let t: TestServer;
  let key: string;

  before(async () => {
    t = await startTestServer({
      captureLogs: true,
      plugins: [
        { package: '@parley/storage-memory' },
        { package: '@parley/channel-sandbox', options: { autoScanMs: 0 } },
        { package: '@parley/webhook-native' },
        { package: '@parley/channel-instagram', options: { graphBaseUrl: 'http://127.0.0.1:9', profileLookup: false } },
      ],
    });
    key = (await t.createInstance({ name: 'unauthenticated' })).key;
  });
  after(async () => {
    await t.stop();
  });

  it('a flood of their failures (400, 403) writes an info line a second, each counting the requests it stands for', async () => {
    const start = t.logs.length;
    const failures: [string, string, unknown, number][] = [
      ['GET', '/%ZZ/instance', undefined, 400],
      ['GET', '/docs/assets/%E0%A4%A', undefined, 400],
      ['GET', '/instagram/webhook?hub.mode=subscribe&hub.verify_token=not-linked&hub.challenge=123', undefined, 403],
      ['POST', '/instagram/webhook', '{"object": "instagram", "entry": [', 400],
    ];
    const began = performance.now();
    const answers = await Promise.all(Array.from({ length: 10 }, () => failures.map(([method, path, body]) => t.request(method, path, body))).flat());
    const seconds = (performance.now() - began) / 1000;
    assert.deepEqual(answers.map((r) => r.status), Array.from({ length: 10 }, () => failures.map(([, , , status]) => status)).flat());
    const lines = await linesCounting(() => loud(t.logs.slice(start)), 30, 'request', 40);
    assert.equal(lines.reduce((n, l) => n + l.requests, 0), 40, 'every request is counted by a line');
    assert.ok(lines.length <= Math.ceil(seconds) + 2 && lines.length < 40, `${lines.length} lines for 40 requests in ${seconds.toFixed(1)} s`);
    for (const line of lines) assert.ok([400, 403].includes(line.status) && typeof line.path === 'string' && !line.path.includes('%ZZ'), JSON.stringify(line));
    assert.deepEqual(loud(t.logs.slice(start)).filter((l) => l.msg !== 'request'), []);
  });

  it('an authenticated caller\'s failures are still logged one line each', async () => {
    const start = t.logs.length;
    for (let i = 0; i < 5; i++) assert.equal((await t.request('POST', `/${key}/message/text`, { to: 'x' })).status, 400);
    const lines = await linesCounting(() => loud(t.logs.slice(start)), 30, 'request', 5);
    assert.deepEqual(lines.map((l) => [l.path, l.status, l.requests]), Array.from({ length: 5 }, () => ['/:key/message/text', 400, undefined]));
  });

  it('a WebSocket upgrade whose request target is no URL answers 400 and logs nothing', async () => {
    const start = t.logs.length;
    const answers = await Promise.all(Array.from({ length: 20 }, () => rawRequest(t.url, `GET http://[/events HTTP/1.1\r\nHost: x\r\n${UPGRADE}\r\n`)));
    for (const answer of answers) {
      assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/);
      assert.deepEqual(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), {
        status: 400, error: { code: 'validation_failed', message: 'the request target is not a valid URL' },
      });
    }
    await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(loud(t.logs.slice(start)), []);
  });

  it('a refused WebSocket upgrade does not keep its connection, even when the client keeps its side open', async () => {
    const { port } = new URL(t.url);
    const refusals = ['/unknownKeyAAAAAAAAAAAAAAAAAAAAAAAA/events', '/admin/events', '/nowhere'];
    const outcomes = await Promise.all(refusals.flatMap((path) => Array.from({ length: 4 }, () => new Promise<{ answer: string; closed: boolean }>((resolve) => {
      // allowHalfOpen: the client never ends its side, as one holding connections open would not.
      const socket = connect({ port: Number(port), host: '127.0.0.1', allowHalfOpen: true });
      let answer = '';
      let closed = false;
      socket.setEncoding('utf8').on('data', (c: string) => (answer += c));
      socket.on('error', () => undefined).on('close', () => (closed = true));
      socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer not-the-admin-token\r\n${UPGRADE}\r\n`);
      // Past the server's linger, bytes sent to a connection it closed are answered with a reset, which the next
      // write reports; a connection it keeps takes them in silence.
      for (const ms of [1500, 1800, 2100]) setTimeout(() => socket.write('still here'), ms);
      setTimeout(() => {
        resolve({ answer: answer.split('\r\n')[0]!, closed });
        socket.destroy();
      }, 3000);
    }))));
    assert.deepEqual(outcomes, refusals.flatMap((path) => Array.from({ length: 4 }, () => ({
      answer: path === '/admin/events' ? 'HTTP/1.1 401 Unauthorized' : 'HTTP/1.1 404 Not Found', closed: true,
    }))));
  });
});

describe('a server without a built dashboard, flooded with requests for it', () => {
  it('answers each 503 and writes a warning line a second, each counting the requests it stands for', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'parley-nodash-flood-'));
    const chunks: string[] = [];
    const logger = createLogger({ level: 'info', destination: new Writable({ write: (chunk, _e, done) => { chunks.push(String(chunk)); done(); } }) }) as unknown as Logger;
    const server = await ParleyServer.create({
      config: loadConfig({}, {
        port: 0, host: '127.0.0.1', dataDir, adminToken: 'test-admin-token-0123456789',
        plugins: [{ package: '@parley/storage-memory' }, { package: '@parley/channel-sandbox' }, { package: '@parley/webhook-native' }],
      }),
      logger, dashboard: dashboardFiles(join(dataDir, 'no-such-build')),
    });
    try {
      const url = await server.listen();
      const start = chunks.length;
      const began = performance.now();
      const statuses = await Promise.all(Array.from({ length: 30 }, async () => (await fetch(`${url}/dashboard/`)).status));
      const seconds = (performance.now() - began) / 1000;
      assert.deepEqual([...new Set(statuses)], [503]);
      const lines = await linesCounting(() => loud(chunks.slice(start)), 40, 'request', 30);
      assert.equal(lines.reduce((n, l) => n + l.requests, 0), 30, 'every request is counted by a line');
      assert.ok(lines.length <= Math.ceil(seconds) + 2 && lines.length < 30, `${lines.length} lines for 30 requests in ${seconds.toFixed(1)} s`);
      assert.deepEqual([...new Set(lines.map((l) => `${l.method} ${l.path} ${l.status}`))], ['GET /dashboard 503']);
    } finally {
      await server.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

const redisUrl = serviceUrlOrSkip('REDIS_URL', 'readiness probes while storage is down');

if (redisUrl) {
  describe('a flood of readiness probes while storage is down', () => {
    const target = new URL(redisUrl);
    const proxy = new TcpProxy(target.hostname, Number(target.port || 6379));
    const prefix = `parley-e2e-unauth-${process.pid}-${Date.now()}:`;
    let t: TestServer;

    before(async () => {
      await proxy.start();
      t = await startTestServer({
        captureLogs: true,
        plugins: [{ package: '@parley/storage-redis', options: { url: `redis://127.0.0.1:${proxy.port}`, keyPrefix: prefix, commandTimeoutMs: 300 } }, { package: '@parley/channel-sandbox' }],
      });
    });
    after(async () => {
      await t.stop();
      await proxy.cut();
      await deleteKeys(redisUrl, prefix);
    });

    it('answers each 503 and writes a line a second of each kind, each counting the probes it stands for', async () => {
      assert.equal((await t.request('GET', '/readyz')).status, 200);
      await proxy.cut();
      const start = t.logs.length;
      const began = performance.now();
      const statuses = await Promise.all(Array.from({ length: 20 }, async () => (await t.request('GET', '/readyz')).status));
      const seconds = (performance.now() - began) / 1000;
      assert.deepEqual([...new Set(statuses)], [503]);
      for (const msg of ['request failed', 'request']) {
        const lines = await linesCounting(() => loud(t.logs.slice(start)), 40, msg, 20);
        assert.equal(lines.reduce((n, l) => n + l.requests, 0), 20, `every probe is counted by a "${msg}" line`);
        assert.ok(lines.length <= Math.ceil(seconds) + 2 && lines.length < 20, `${lines.length} "${msg}" lines for 20 probes in ${seconds.toFixed(1)} s`);
        for (const line of lines) assert.equal(line.route ?? line.path, '/readyz');
      }
    });
  });
}
