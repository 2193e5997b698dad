import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { guardedAgents } from '../src/index.js';

/**
 * Real HTTP requests to a loopback server through the guarded agents: the address actually dialled
 * is refused (literals and host names alike) before any connection, unless private addresses are allowed.
 */
describe('guardedAgents', () => {
  let server: http.Server;
  let port: number;
  let connections = 0;

  before(async () => {
    server = http.createServer((_req, res) => res.end('ok'));
    server.on('connection', () => connections++);
    // Dual-stack: IPv4-mapped literals reach it too.
    await new Promise<void>((resolve) => server.listen(0, '::', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  function get(url: string, allowPrivate: boolean): Promise<{ status?: number; code?: string }> {
    const agents = guardedAgents(allowPrivate);
    return new Promise((resolve) => {
      const req = http.get(url, { agent: agents.http }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode }));
      });
      req.on('error', (err: NodeJS.ErrnoException) => resolve({ code: err.code }));
    }).finally(() => agents.http.destroy()) as Promise<{ status?: number; code?: string }>;
  }

  it('refuses loopback literals, IPv4-embedding IPv6 literals and a name resolving to loopback, without connecting', async () => {
    const before = connections;
    for (const host of [
      '127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '[::127.0.0.1]', '[::ffff:0:127.0.0.1]', '[2002:7f00:1::]', '[64:ff9b::7f00:1]',
      '[64:ff9b:1::7f00:1]', '[2001::7f00:1]', '[fec0::1]', 'localhost', hostname(),
    ]) {
      assert.deepEqual(await get(`http://${host}:${port}/`, false), { code: 'EPRIVATEADDR' }, host);
    }
    assert.equal(connections, before);
  });

  it('connects when private addresses are allowed', async () => {
    for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', 'localhost']) {
      assert.deepEqual(await get(`http://${host}:${port}/`, true), { status: 200 }, host);
    }
  });
});
