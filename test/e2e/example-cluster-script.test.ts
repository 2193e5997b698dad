import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { freePort } from '@parley/testkit/host';
import { PrivateRedis } from '@parley/storage-redis/testing';

const SCRIPT = fileURLToPath(new URL('../../../examples/cluster/start.sh', import.meta.url));

/** True when something accepts a TCP connection on the loopback port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
  });
}

async function ready(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200;
  } catch {
    return false;
  }
}

/**
 * examples/cluster/start.sh as an operator runs it from a shell that has its own PORT and HOST (issue 24,
 * item 19: one PORT for three nodes made the second die with EADDRINUSE): each node listens on its own
 * port, and Ctrl-C (SIGINT) stops all three.
 */
describe('examples/cluster/start.sh', () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-example-cluster-'));
  let redis: PrivateRedis;
  before(async () => {
    redis = new PrivateRedis(await freePort(), dir);
    await redis.start();
  });
  after(async () => {
    await redis.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts its three nodes on 8081-8083 whatever PORT and HOST say, and stops them on Ctrl-C', { timeout: 90_000 }, async () => {
    const stray = await freePort();
    const script = spawn('sh', [SCRIPT], {
      cwd: dir, detached: true, stdio: 'ignore',
      env: { ...process.env, PORT: String(stray), HOST: '0.0.0.0', PARLEY_NODE_ID: 'from-the-shell', REDIS_URL: redis.url },
    });
    const exited = new Promise<number | null>((resolve) => script.once('exit', (code) => resolve(code)));
    try {
      for (let i = 0; i < 600 && !(await Promise.all([8081, 8082, 8083].map(ready))).every(Boolean); i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.deepEqual(await Promise.all([8081, 8082, 8083].map(ready)), [true, true, true], 'three nodes ready on their own ports');
      assert.equal(await listening(stray), false, 'no node took the shell\'s PORT');
    } finally {
      process.kill(-script.pid!, 'SIGINT');
    }
    await exited;
    for (let i = 0; i < 150 && (await Promise.all([8081, 8082, 8083].map(listening))).some(Boolean); i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.deepEqual(await Promise.all([8081, 8082, 8083].map(listening)), [false, false, false], 'all three stopped');
  });
});
